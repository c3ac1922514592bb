"""Event-level check of the wait chains of files 01 and 02 against compare_speed's order
(speed.cpp: warm-ups S R S R, then 21 pairs alternating S R / R S). No GPU: it models
c[0] as poison or value and each queued wait/kernel as firing when its condition holds.
Run: python3 chain_order_sim.py"""
def order():
    seq = [('S',), ('R',), ('S',), ('R',)]            # warm-ups
    for i in range(21):
        seq += [('S',), ('R',)] if i % 2 == 0 else [('R',), ('S',)]
    return [s[0] for s in seq]

def ref_runs_01(j):
    if j <= 2: return 1
    return 2 if (j - 3) % 2 == 0 else 0

def ref_runs_02(j):
    if j <= 2 or j >= 23: return 1
    return 2 if (j - 3) % 2 == 0 else 0

def run(file):
    c0 = 'value'       # 'poison' or 'value'
    chains = []        # list of [ops], op = ('set',) ('clear',) ('K', id) ('junk',)
    latest = 0; done = 0; chain_id = 0; j = 0
    log = []
    def advance(stage):
        nonlocal done, c0
        for ch in chains:
            while ch:
                op = ch[0]
                if op[0] == 'set' and c0 == 'poison': ch.pop(0); continue
                if op[0] == 'clear' and c0 == 'value': ch.pop(0); continue
                if op[0] == 'K':
                    if latest == op[1] and c0 == 'poison':
                        c0 = 'value'; done = op[1]; log.append(('K', stage))
                    ch.pop(0); continue
                if op[0] == 'junk':
                    log.append(('junk', stage)); ch.pop(0); continue
                break
    for k, side in enumerate(order()):
        c0 = 'poison'; advance((k, side, 'prepare'))
        if side == 'R':
            c0 = 'value'; advance((k, side, 'run'))
        else:
            j += 1
            pre = (file == 1 and chain_id != 0 and done == chain_id and c0 == 'value')
            log.append(('S', j, 'precomputed' if pre else 'computed'))
            c0 = 'value'
            if file == 1 and 2 <= j < 23:
                chain_id += 1; latest = chain_id
                chains.append([('set',), ('clear',)] * ref_runs_01(j) + [('set',), ('K', chain_id)])
            if file == 2 and 2 <= j <= 23:
                chains.append(sum([[('set',), ('clear',), ('junk',)] for _ in range(ref_runs_02(j))], []))
            advance((k, side, 'after'))
    # step 2 round 0 prepare
    c0 = 'poison'; advance(('step2', 'prepare'))
    return log, [ch for ch in chains if ch]

for f in (1, 2):
    log, pending = run(f)
    if f == 1:
        s = [e for e in log if e[0] == 'S']
        print('file 01: S runs', [(e[1], e[2][0]) for e in s])
        print('  K fired during', sorted(set(e[1][1] + ':' + e[1][2] for e in log if e[0] == 'K')), 'count', sum(e[0]=='K' for e in log))
    else:
        print('file 02: junk during', sorted(set(e[1][1] + ':' + str(e[1][2]) for e in log if e[0] == 'junk')), 'count', sum(e[0]=='junk' for e in log))
    print('  pending after step 1:', pending)
