# Step 2's figures of every row graded under a corpus work folder: verdict, excess, bounds, join cost.
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], 'results/**/outcome.json'), recursive=True)):
    o = json.load(open(path))
    for c in o.get('checks', []):
        if c.get('id') != 'step2.timer':
            continue
        v = c.get('values', {})
        r = lambda k: round(v.get(k, -1), 2)
        print(os.path.basename(os.path.dirname(path))[:58], c.get('verdict'), 'exc', r('their_excess_us'), 'ref', r('reference_excess_us'),
              'join', r('join_cost_us'), 'str', v.get('most_streams_in_a_launch'), 'apart', r('timer_kernels_apart_share'),
              'short', r('launch_excess_shortfall_us'), (c.get('detail') or '')[-220:].replace('\n', ' | '))
