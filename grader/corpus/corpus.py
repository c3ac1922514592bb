#!/usr/bin/env python3
"""The grader's corpus: submissions of every lab with the verdict each must get.

Each submission is the lab's reference solution (or its skeleton) with a few
exact edits, so it differs from a known-good file by exactly what it names:
correct in another way, slow, wrong, or hostile (crashing, hanging the CPU or
the GPU, breaking the GPU context, writing out of bounds, printing without end,
taking all GPU memory, using a forbidden library). The hostile edits are the
same for every lab: a statement at the start of step 1's function, and
definitions at the top of the file.

  corpus.py build --lab lab1 --out DIR [--copies K] [--only a,b] [--layout L]   the submissions and expected.json
  corpus.py check --expected FILE --results OUT                     compares a grading run with them
  corpus.py test  --lab lab1 --build BUILD --work DIR [...]         build, grade, check (a CTest test)
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))  # grader/, for memlab_grader
from memlab_grader.cli import known_labs  # noqa: E402  (after the path it needs)


@dataclass
class Expect:
    status: str  # or several, "a|b", where the machine's timing decides which a run ends in
    points: Dict[str, float] = field(default_factory=dict)  # exact points of these checks
    below: Dict[str, float] = field(default_factory=dict)   # fewer points than this
    total: Optional[Tuple[float, float]] = None              # inclusive range
    sanitize_status: Optional[str] = None                    # with --sanitize, if different
    says: List[str] = field(default_factory=list)           # texts some check's detail holds (outcome.json)


@dataclass
class Entry:
    name: str
    expect: Expect
    edits: List[Tuple[str, str]] = field(default_factory=list)  # (find, replace): each find occurs exactly once
    prelude: str = ""        # added at the top of the file
    statement: str = ""      # added at the start of step 1's function
    from_skeleton: bool = False
    gpu_hostile: bool = False  # followed by a reference submission, which must be unaffected
    source: str = ""         # a whole file instead, relative to the source tree (the red team's)


FULL = Expect("graded", total=(100, 100))
# What a check says when a function that ran past the call limit is cut short in a later call.
LATER_CALLS_CUT = "limit in an earlier call, so its later calls get"
# What a check says when the code loaded GPU code of its own (at run time, or in a constructor).
MODULES_OF_ITS_OWN = "GPU modules of its own"


def mutant_edits(lab: str, name: str) -> List[Tuple[str, str]]:
    """The edit of the mutant @p name in tests/@p lab/CMakeLists.txt (memlab_add_mutant's
    FIND and REPLACE, CMake escapes undone): one definition of each wrong variant, which
    the lab's GPU tests grade through its grader and the corpus through grade.py."""
    path = os.path.join(SOURCE_DIR, "tests", lab, "CMakeLists.txt")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    quoted = r'"((?:[^"\\]|\\.)*)"'
    found = re.search(rf"memlab_add_mutant\(LAB {lab} NAME {name}\s+FIND {quoted}\s+REPLACE {quoted}", text)
    if not found:
        raise SystemExit(f"corpus: no mutant {name} in {path}")

    def unescape(value: str) -> str:
        return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), value)

    return [(unescape(found.group(1)), unescape(found.group(2)))]


def hostile_entries(full: Dict[str, bool], first: str) -> List[Entry]:
    """The same misbehaviours for every lab, in step 1's function (@p first is
    step 1's correctness check); @p full selects the expensive ones. The
    student's code runs in a runner the grader restarts after a crash, so
    checks that never call that function keep their points."""
    zero_first = {first: 0}
    entries = [
        Entry("compile_error", Expect("compile error", total=(0, 0)), statement="  this is not C++;\n"),
        Entry("crash", Expect("crashed", points=zero_first), statement="  *static_cast<volatile int*>(nullptr) = 1;\n",
              gpu_hostile=True),
        # The runner may report the lost context, or die of it first (runs differ).
        Entry("sticky_error", Expect("GPU error|crashed", points=zero_first, sanitize_status="memory error"),
              prelude="__global__ void corpus_wild_write(int* p) { p[threadIdx.x] = 1; }\n",
              statement="  corpus_wild_write<<<1, 32>>>(reinterpret_cast<int*>(0x10));\n"
                        "  cudaDeviceSynchronize();\n", gpu_hostile=True),
        Entry("forbidden_thrust", Expect("forbidden API", total=(0, 0)), prelude="#include <thrust/device_vector.h>\n"),
        Entry("forbidden_cublas", Expect("forbidden API", total=(0, 0)), prelude="#include <cublas_v2.h>\n"),
        Entry("forbidden_file", Expect("forbidden API", total=(0, 0)), prelude="#include <cstdio>\n",
              statement="  if (std::FILE* f = std::fopen(\"/etc/hostname\", \"r\")) std::fclose(f);\n"),
        Entry("forbidden_header", Expect("forbidden API", total=(0, 0)), prelude="#include <memlab/grading/speed.hpp>\n"),
        # Written on purpose: a comment and a string that name forbidden things are not uses of them.
        Entry("mentions_in_comments", FULL, prelude="// cublasSgemm, thrust::sort and fopen are not used here.\n"
                                                    "static const char* corpus_note = \"cub::DeviceReduce fopen\";\n"),
    ]
    if full.get("all"):
        entries += [
            # Step 1's function is called again by a later check (its speed check), with a
            # shorter limit once it has hung (remote.cu, call_limit_seconds).
            Entry("host_loop", Expect("timed out", points=zero_first, says=[LATER_CALLS_CUT]),
                  statement="  for (volatile bool forever = true; forever;) {\n  }\n", gpu_hostile=True),
            Entry("gpu_hang", Expect("timed out", points=zero_first, says=[LATER_CALLS_CUT]),
                  prelude="__global__ void corpus_spin(volatile int* flag) { while (*flag == 0) {} }\n",
                  statement="  int* flag = nullptr;\n  cudaMalloc(&flag, sizeof(int));\n"
                            "  cudaMemset(flag, 0, sizeof(int));\n  corpus_spin<<<1, 1>>>(flag);\n"
                            "  cudaDeviceSynchronize();\n", gpu_hostile=True),
            Entry("huge_output", Expect("output limit", total=(0, 0)), prelude="#include <cstdio>\n",
                  statement="  for (;;) std::puts(\"all work and no play makes jack a dull boy\");\n", gpu_hostile=True),
            Entry("exits_early", Expect("crashed", points=zero_first), prelude="#include <cstdlib>\n",
                  statement="  std::exit(0);\n"),
            Entry("all_gpu_memory", Expect("GPU memory exhausted"),
                  statement="  static bool hoarded = false;\n"
                            "  for (std::size_t chunk = std::size_t(1) << 30; !hoarded && chunk >= (std::size_t(1) << 20);) {\n"
                            "    void* hoard = nullptr;\n"
                            "    if (cudaMalloc(&hoard, chunk) != cudaSuccess) { cudaGetLastError(); chunk /= 2; }\n"
                            "  }\n  hoarded = true;\n", gpu_hostile=True),
            # One float past the end of a 255-float allocation: it lands in the padding that
            # rounds the allocation up, so nothing faults and no other buffer changes; only
            # compute-sanitizer sees it. (Past a 256-float one, it overwrote the grader's next
            # buffer on an H100: that is what such writes usually do.)
            Entry("out_of_bounds", Expect("graded", total=(100, 100), sanitize_status="memory error"),
                  prelude="__global__ void corpus_one_past(float* p, int n) { p[n] = 0; }\n",
                  statement="  static float* spare = nullptr;\n"
                            "  if (spare == nullptr) cudaMalloc(&spare, 255 * sizeof(float));\n"
                            "  corpus_one_past<<<1, 1>>>(spare, 255);\n"),
        ]
    return entries


# Per lab: where hostile statements go (the opening of step 1's function), and
# the lab's own entries. Wrong and slow ones are the lab tests' variants.
LABS = {
    "lab1": dict(
        first="step1.correct",
        anchor="void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {\n",
        full=True,
        entries=[
            Entry("thread_per_element", Expect("graded", total=(95, 100)), edits=[
                ("  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;\n"
                 "  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;\n"
                 "       i += stride) {\n    c[i] = a[i] + b[i];\n  }\n",
                 "  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;\n"
                 "  if (i < n) c[i] = a[i] + b[i];\n"),
                ("std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count())",
                 "blocks_for_n")]),
            Entry("one_block", Expect("graded", points={"step1.correct": 30, "step1.speed": 0}),
                  edits=mutant_edits("lab1", "one_block")),
            Entry("misses_last_element", Expect("graded", points={"step1.correct": 0}),
                  edits=mutant_edits("lab1", "misses_the_last_element")),
            Entry("skeleton", Expect("graded", points={"step1.correct": 0}), from_skeleton=True),
            # Tricks a student might try for marks, written fresh for the runner/grader split
            # (grader/README.md, threat model): each must earn nothing it did not do.
            Entry("slow_on_own_stream", Expect("graded", points={"step1.correct": 30, "step1.speed": 0}),
                  edits=[("vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>",
                          "static cudaStream_t own = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);"
                          " return s; }();\n  (void)blocks;\n  vector_add_kernel<<<1, kThreadsPerBlock, 0, own>>>")]),
            Entry("slow_on_legacy_stream", Expect("graded", points={"step1.correct": 30, "step1.speed": 0}),
                  edits=[("vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>",
                          "(void)blocks;\n  vector_add_kernel<<<1, kThreadsPerBlock, 0, cudaStreamLegacy>>>")]),
            Entry("skips_repeated_calls", Expect("graded", points={"step1.correct": 30, "step1.speed": 0}),
                  statement="  static const void* last[3] = {};\n  static std::size_t last_n = 0;\n  static int repeats = 0;\n"
                            "  repeats = (a == last[0] && b == last[1] && c == last[2] && n == last_n) ? repeats + 1 : 0;\n"
                            "  last[0] = a; last[1] = b; last[2] = c; last_n = n;\n"
                            "  if (repeats >= 2) return;\n"),
            # Its background kernels are launched by a thread of its own, which the runner's
            # launch watch names in the next call (that check fails: run 99); or, where they run
            # while the grader checks the GPU is idle, the runner is ended ("left GPU work
            # running"); or they run inside its next calls, which then run out of time.
            Entry("leaves_work_running", Expect("graded|left GPU work running|timed out", points={"step1.speed": 0},
                                                total=(30, 30)),
                  prelude="#include <chrono>\n#include <thread>\n"
                          "__global__ void corpus_busy(long long cycles) {\n"
                          "  const long long start = clock64();\n  while (clock64() - start < cycles) {}\n}\n",
                  statement="  static int calls = 0;\n"
                            "  if (++calls > 10) std::thread([] {\n"
                            "    std::this_thread::sleep_for(std::chrono::microseconds(300));\n"
                            "    corpus_busy<<<1024, 256>>>(4000000000LL);\n  }).detach();\n"),
            Entry("restores_the_poison", Expect("graded", points={"step1.correct": 0}),
                  prelude="__global__ void corpus_past_end(float* c, std::size_t n) {\n"
                          "  c[n] = 1.0f;\n  __threadfence();\n  reinterpret_cast<unsigned*>(c)[n] = 0xFFFFFFFFu;\n}\n",
                  edits=[("  MEMLAB_CHECK_LAUNCH();\n}\n\nstd::vector<float> time_launches",
                          "  MEMLAB_CHECK_LAUNCH();\n  corpus_past_end<<<1, 1, 0, stream>>>(c, n);\n}\n\n"
                          "std::vector<float> time_launches")]),
            Entry("int_index", Expect("graded", points={"step1.correct": 0}),
                  edits=[("for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;",
                          "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;")]),
            Entry("exits_with_no_gpu_code", Expect("crashed", total=(0, 0)), prelude="#include <cstdlib>\n",
                  statement="  std::exit(77);\n"),
            Entry("exits_with_grader_error_code", Expect("crashed", total=(0, 0)), prelude="#include <cstdlib>\n",
                  statement="  std::exit(3);\n"),
            # Looks for the reference's build where an unsandboxed runner could open it (the kit
            # beside its working folder, the build folder) and forwards vector_add to it; the
            # names are pasted by a macro, which the scan's second look (the preprocessed lines)
            # and its imports look both see: forbidden before anything runs. (In the sandbox the
            # paths would not exist, and the file would be the skeleton.)
            Entry("borrows_the_reference", Expect("forbidden API", total=(0, 0)), from_skeleton=True,
                  prelude="#define CORPUS_JOIN(a, b) a##b\n"
                          "extern \"C\" void* CORPUS_JOIN(dl, open)(const char*, int);\n"
                          "extern \"C\" void* CORPUS_JOIN(dl, sym)(void*, const char*);\n"
                          "#include \"lab1.cuh\"\n"
                          "struct CorpusApi {  // the grader's table (grading/lab1_api.hpp), copied\n"
                          "  decltype(&lab1::vector_add) vector_add;\n"
                          "  decltype(&lab1::time_launches) time_launches;\n"
                          "  decltype(&lab1::choose_footprints) choose_footprints;\n"
                          "  decltype(&lab1::predict_faster_when_warm) predict_faster_when_warm;\n"
                          "};\n"
                          "static const CorpusApi* corpus_reference() {\n"
                          "  for (const char* path : {\"../../kit/liblab1_reference.so\", \"build/labs/lab1/liblab1_reference.so\"}) {\n"
                          "    if (void* handle = CORPUS_JOIN(dl, open)(path, 2)) {\n"
                          "      return static_cast<const CorpusApi*>(CORPUS_JOIN(dl, sym)(handle, \"memlab_lab1_api\"));\n"
                          "    }\n  }\n  return nullptr;\n}\n",
                  statement="  if (const CorpusApi* other = corpus_reference()) { other->vector_add(a, b, c, n, stream); return; }\n"),
        ]),
    "lab2": dict(
        first="step1.rows",
        anchor="void row_sums_thread_per_row(const float* matrix, float* sums, std::size_t rows, std::size_t cols,\n"
               "                             cudaStream_t stream) {\n",
        entries=[
            Entry("blocks_of_128", Expect("graded", total=(80, 100)),
                  edits=[("constexpr int kThreadsPerBlock = 256;", "constexpr int kThreadsPerBlock = 128;")]),
            Entry("warp_down_a_column", Expect("graded", points={"step3.columns": 15}, below={"step3.columns_speed": 20}),
                  edits=mutant_edits("lab2", "column_sums_warp_down_a_column")),
            Entry("swap_row_and_column", Expect("graded", points={"step1.rows": 0}),
                  edits=mutant_edits("lab2", "row_sums_swap_row_and_column")),
            Entry("skeleton", Expect("graded", points={"step1.rows": 0}), from_skeleton=True),
            # Work on the legacy default stream is not ordered with the runner's non-blocking stream, and
            # the student's untimed calls hold the two for different times (remote.cu, order_shake): the
            # zeroing after the sums, or the sums before the zeroing, in half the calls. All of it on the
            # legacy stream is ordered, and fair.
            Entry("zeroes_on_the_default_stream", Expect("graded", points={"step3.columns": 0}),
                  edits=[("MEMLAB_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));",
                          "MEMLAB_CHECK(cudaMemset(sums, 0, cols * sizeof(float)));")]),
            Entry("sums_columns_on_the_default_stream", Expect("graded", points={"step3.columns": 0}),
                  edits=[("column_sums_split_kernel<<<grid, kThreadsPerBlock, 0, stream>>>",
                          "column_sums_split_kernel<<<grid, kThreadsPerBlock>>>")]),
            Entry("everything_on_the_default_stream", FULL,
                  edits=[("row_sums_thread_per_row_kernel<<<blocks_for(rows), kThreadsPerBlock, 0, stream>>>",
                          "row_sums_thread_per_row_kernel<<<blocks_for(rows), kThreadsPerBlock>>>"),
                         ("column_sums_thread_per_column_kernel<<<blocks_for(cols), kThreadsPerBlock, 0, stream>>>",
                          "column_sums_thread_per_column_kernel<<<blocks_for(cols), kThreadsPerBlock>>>"),
                         ("row_sums_warp_per_row_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>",
                          "row_sums_warp_per_row_kernel<<<blocks, kThreadsPerBlock>>>"),
                         ("MEMLAB_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));",
                          "MEMLAB_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float)));"),
                         ("column_sums_split_kernel<<<grid, kThreadsPerBlock, 0, stream>>>",
                          "column_sums_split_kernel<<<grid, kThreadsPerBlock>>>")]),
        ]),
    "lab3": dict(
        first="step1.correct",
        anchor="void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {\n",
        entries=[
            Entry("blocks_of_512", Expect("graded", total=(80, 100)),
                  edits=[("constexpr int kThreadsPerBlock = 256;", "constexpr int kThreadsPerBlock = 512;")]),
            Entry("polynomial_too_few_blocks", Expect("graded", points={"step3.correct": 20}, below={"step3.speed": 20}),
                  edits=mutant_edits("lab3", "polynomial_too_few_blocks")),
            Entry("double_sums_in_float", Expect("graded", points={"step1.correct": 0}),
                  edits=mutant_edits("lab3", "double_sums_accumulate_in_float")),
            # Accurate, but computed on the host: step 2's timed runs, each checked to its accuracy, wait for it
            # (2054x the reference's time, run 79). Whether the check past 2^32 elements (17 GB through the host)
            # outlasts the per-call limit first, and the accuracy points go too, is the host's timing (run 80).
            Entry("compensated_on_the_host", Expect("graded|timed out", points={"step2.speed": 0}, total=(75, 90)),
                  edits=mutant_edits("lab3", "compensated_sums_on_the_host")),
            Entry("skeleton", Expect("graded", points={"step1.correct": 0}), from_skeleton=True),
        ]),
    "lab4": dict(
        first="step1.correct",
        anchor="void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {\n",
        entries=[
            # Correct, a little slower (1.31x on an H100 at step 2): it loses a share of step 2's
            # speed points and nothing else, since speed never blocks later steps.
            Entry("padded_tiles", Expect("graded", total=(90, 100)),
                  edits=[("  __shared__ float a_tile[kTileWidth][kTileWidth];\n  __shared__ float b_tile[kTileWidth][kTileWidth];",
                          "  __shared__ float a_tile[kTileWidth][kTileWidth + 1];\n  __shared__ float b_tile[kTileWidth][kTileWidth + 1];")]),
            Entry("naive_blocks_of_32x32", Expect("graded", total=(90, 100)),
                  edits=[("  constexpr int kSide = 16;", "  constexpr int kSide = 32;")]),
            Entry("fast_is_only_tiled", Expect("graded", points={"step6.correct": 10}, below={"step6.speed": 10}),
                  edits=mutant_edits("lab4", "fast_is_only_tiled")),
            Entry("tiled_wrong_tile_index", Expect("graded", points={"step1.correct": 10, "step2.correct": 0}),
                  edits=mutant_edits("lab4", "tiled_wrong_tile_index")),
            Entry("skeleton", Expect("graded", points={"step1.correct": 0}), from_skeleton=True),
        ]),
    "lab5": dict(
        first="step1.correct",
        anchor="void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,\n"
               "                    double beta, double* y, cudaStream_t stream) {\n",
        entries=[
            Entry("rows_in_blocks_of_256", Expect("graded", total=(85, 100)),
                  edits=[("constexpr int kThreadsPerRowBlock = 128;", "constexpr int kThreadsPerRowBlock = 256;")]),
            Entry("fast_is_thread_per_row", Expect("graded", points={"step4.correct": 15}, below={"step4.speed": 20}),
                  edits=mutant_edits("lab5", "fast_is_thread_per_row")),
            Entry("misses_last_column", Expect("graded", points={"step1.correct": 0}),
                  edits=mutant_edits("lab5", "row_major_misses_last_column")),
            Entry("skeleton", Expect("graded", points={"step1.correct": 0}), from_skeleton=True),
        ]),
}


# Submissions written by red teams against the trusted grader (red-team/README.md),
# with what a correct grader gives each; graded after the lab's own entries.
RED_TEAM = {
    "lab1": [
        # Names pasted together by a macro (fork, execl, dlopen, dlsym): the scan's second look, at the
        # preprocessed lines, names them before anything runs (since session 10; the defences they
        # met at run time are host-tested: test_sandbox, cgroup_test).
        ("01-mitm_fake_pings_slow_kernel", Expect("forbidden API", total=(0, 0))),
        # Its timer's SIGCONT, once discarded by a stop, may never come again: then it is 02b.
        ("02-sigcont_timer_freeze_escape", Expect("ran while stopped|graded", points={"step1.speed": 0},
                                                  total=(0, 80))),
        # Its watcher thread launches kernels of its own: the launch watch names them in a call of
        # step 1's speed check, which then fails not on speed alone, so steps 2-4 are blocked (run 99).
        ("02b-control_no_sigcont_timer", Expect("graded", points={"step1.speed": 0}, total=(30, 30))),
        ("03-hog_memory_skips_2p31_check", Expect("timed out|graded", points={"step1.correct": 0}, total=(0, 20))),
        # Its proxy between the runner and the grader's socket needs socketpair, which the scan names
        # among the build's imports since session 10 (before, the grader's own events failed step 2).
        ("04-mitm_forged_step2_events", Expect("forbidden API", total=(0, 0))),
        ("05-freeze_escape_hopper", Expect("forbidden API", total=(0, 0))),
        # A timer that synchronises the stream before its first event drains the grader's hold, and its
        # launches then run at the host's pace: at L2/2 its excess over the reference timer's ranged from
        # 0 to 2.6 us in eight copies (run 113), the host clocks' 1.8 to 2.1. Since session 16 the runner
        # sees the first launch come after the hold, and step 2 fails with that reason (the guide says so).
        ("06-fair_timer_syncs_first", Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("08-fair_footprints_on_the_bounds", FULL),
        ("09-borrow_reference_by_search", Expect("forbidden API", total=(0, 0))),
        ("10-early_reply_hidden_in_freeze", Expect("forbidden API", total=(0, 0))),
        # Round 16 (round16/README.md): files and programs reached by names the lists lacked (fopen64,
        # _Fork, execve: found among the build's imports) or by system calls in host assembly.
        ("round16/01-trick_unlisted_names_fopen64_fork_execve", Expect("forbidden API", total=(0, 0))),
        ("round16/02-trick_raw_syscalls_in_host_asm", Expect("forbidden API", total=(0, 0))),
        # Round 17 (round17/README.md): host assembly behind a pragma's quote, system calls from
        # heap made executable by personality(), and file doors by other names (forbidden); a host
        # timer with empty asm compiler barriers is fair to the scan and is graded like round 3's
        # host-clock timer: step 2 fails (its warm launches took 1.85x-1.88x the grader's events
        # around the same kernel on an H100, run 74; before that bound, the 110% share of the call
        # decided it, and it passed in 3 of 4 copies).
        ("round17/01-trick_pragma_quote_hides_host_asm", Expect("forbidden API", total=(0, 0))),
        ("round17/02-trick_personality_makes_heap_executable", Expect("forbidden API", total=(0, 0))),
        ("round17/03-trick_unlisted_doors_basic_file_nocancel_wordexp", Expect("forbidden API", total=(0, 0))),
        ("round17/04-fair_empty_asm_compiler_barrier_in_host_timer",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        # Round 18 (round18/README.md), against step 2's bounds from the runner's events around the
        # student's own vector_add: a vector_add slower when the grader calls it (warm launches below the
        # runner's), a vector_add that waits (its launches cannot queue behind the hold), launches that
        # never ran (c checked after every call), one total shared out by a fixed ratio (launch 1 against
        # the rest where all stream from DRAM): step 2 fails.
        ("round18/01-trick_waiting_timer_kernel_padded_for_the_runner",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round18/02-trick_vector_add_waits_for_its_stream", Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round18/03-trick_host_clock_with_waiting_vector_add",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round18/04-trick_one_event_pair_split_by_a_fixed_ratio",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round18/05-trick_replays_the_runners_own_events", Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        # A correct timer around a launch of its own (one thread per element, ceil(n / 256) blocks, where
        # its vector_add launches 8 blocks per SM): 100 from run 75 to session 19. Since session 20 the
        # yardstick is the grader's own calls of vector_add, and the kernels of each launch of
        # time_launches must run as long as theirs (lab1.cuh: it "launches vector_add"; red team 32 faked
        # the cache's gain with launches of its own): its warm launches run 28% longer, and step 2 fails.
        ("round18/07-fair_timer_launches_one_thread_per_element",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50), says=["direct calls of your vector_add ran"])),
        # Evict-first loads and stores: launches 2-5 no longer find the arrays in L2 (1.01x by its timer
        # and by the grader's events, run 75). Step 2 asks to see the cache, where the reference's runner
        # sees it (the lab's rule): it fails, and the message names the kernel, not the timer.
        ("round18/06-fair_streaming_cache_hints", Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        # Events made per launch, each launch forked to a stream of its own and joined back: fair.
        ("round18/08-fair_fork_join_side_stream_per_launch_events", FULL),
        # Round 19 (round19/README.md). One launch reported as many: the call launched one kernel for
        # five launches asked (since session 16; before, the DRAM floor at the large footprints). An
        # exported vector_add padded only where the grader calls it, beside a waiting timer or a host
        # clock: since session 16 the yardstick is the GPU's own times of the launches time_launches
        # makes itself (CUPTI's kernel records), and both add 4.4-7.0 us to them where the reference's
        # timer adds 2.3 (run 111): step 2 fails.
        ("round19/01-trick_one_launch_reported_as_many", Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round19/02-trick_waiting_timer_pad_tuned_to_the_window",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round19/03-trick_host_clock_no_events_pad_tuned", Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        # Round 26 (round26/README.md), against the yardstick of session 16. The recorded call told from
        # the plain one by the host's cost of a launch, its kernels then slowed, beside a host clock or a
        # waiting timer that wait out the hold first; one pair of events shared 1.2 : 1 where the arrays
        # fit in L2 (every launch's excess, launch 1's included, is bounded below by the reference
        # timer's); a float4 + tail vector_add under a timer that synchronises first, which its launches'
        # host pace put 5 us over (run 112). Each fails step 2.
        ("round26/01-trick_host_clock_pads_only_the_recorded_call",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round26/02-trick_one_event_pair_ratio_only_where_it_fits",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round26/03-fair_float4_tail_kernel_timer_syncs_first",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round26/04-trick_waiting_timer_device_flag_in_recorded_call",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        # Round 3: a timer on the host's clock (the reference's vector_add): step 2 fails, 3 and 4 are blocked.
        ("round3/03-host_clock_timer", Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        # Round 6 (round6/README.md): two fair files, and a wrong timer that fills L2 with persisting lines.
        ("round6/01-fair_float4_gridstride", FULL),
        ("round6/02-fair_chained_events", FULL),
        ("round6/03-trick_l2_persist_disables_cache_check", Expect("graded", points={"step2.timer": 0},
                                                                   total=(50, 50))),
        # Round 22 (round22/README.md): float4 loads, with and without an alignment test. The
        # header promises every array starts an allocation (256-byte aligned), so both are fair.
        ("round22/01-fair_float4_occupancy_grid_scalar_tail", FULL),
        ("round22/02-subtle_float4_assumes_16_byte_alignment", FULL),
        # Round 27 (round27/README.md): fair timers near the guide's edges (a pool of events with a wait
        # on the previous call's last event, chained blocking-sync events, events made in the loop, a
        # cudaStreamQuery probe before the first event): none drains the hold. A size_t index made from a
        # 32-bit product wraps only past 2^32 elements, which the check past 2^31 does not reach
        # (arrays.cpp, beyond_int_range: an open limit, grader/README.md).
        ("round27/01-fair_event_pool_reused_waits_on_last_calls_event", FULL),
        ("round27/02-fair_chained_blocking_sync_events_1024_threads", FULL),
        ("round27/03-fair_float4_ldg_occupancy_grid_events_made_in_loop", FULL),
        ("round27/05-subtle_size_t_index_from_a_32_bit_product", FULL),
        # cudaGetDeviceProperties in every vector_add: cheap enough on an H100 with driver 580 to hold up
        # no launch (run 117: 100); where the query is slow, the launches would run at the host's pace.
        ("round27/04-fair_device_properties_queried_in_every_vector_add", FULL),
        ("round27/06-fair_stream_query_probe_reverse_read_occupancy_each_call", FULL),
        # Round 29 (round29/README.md, run 126). Fixed: a decoy launch before a host-clock timer's wait
        # (the hold is judged by a call's last launch), glibc's _IO_ names and more C-library doors.
        # Session 19: each launch of time_launches must run exactly the kernels a direct call of
        # vector_add runs, and a launch's span takes in its kernels on every stream that run within
        # 5 us of its longest: a kernel of the timer's choosing (06) or launch 1 cut in two (02) no
        # longer sets the yardstick, and a fair vector_add in four chunks on four streams is timed
        # whole (01; its step 1 speed, 1.32x in run 126, is its own).
        ("round29/01-fair_vector_add_in_four_chunks_on_four_streams",
         Expect("graded", points={"step2.timer": 20}, total=(80, 100))),
        ("round29/02-trick_ratio_pair_launch1_split_over_two_streams",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50), says=["which launches 1 at this n"])),
        ("round29/03-trick_host_clock_after_a_decoy_launch", Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round29/04-trick_popen_and_fopen_by_their_libio_names", Expect("forbidden API", total=(0, 0))),
        ("round29/05-trick_file_by_setmntent_process_by_forkpty", Expect("forbidden API", total=(0, 0))),
        ("round29/06-trick_constant_times_matched_by_spin_kernels",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50), says=["which launches 1 at this n"])),
        # Round 32 (run 136: 100 each). Session 20: the yardstick is direct calls of vector_add the
        # runner makes itself, and a launch of time_launches must run its kernels, as long: a pace kernel
        # vector_add always launches, slow only inside time_launches (01), and warm launches on a prefix
        # of the arrays (03) fail; the join allowance is what joining
        # cost the runner's events around those calls, so unjoined empty kernels on six streams buy
        # nothing for a padded timer (02).
        ("round32/01-trick_pace_kernel_in_every_vector_add_sets_the_yardstick",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round32/02-trick_padded_timer_paid_for_by_unjoined_side_kernels",
         Expect("graded", points={"step2.timer": 0}, total=(40, 50))),
        ("round32/03-trick_warm_launches_on_a_prefix_fake_the_cache_gain",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        # Round 33 (session 20's red team): a pace kernel long in every call, the grader's included, ran
        # during the hold and was the direct calls' span (01: a call's time is now no longer than the
        # runner's events around it); a memset inside launch 1's events faked the gain of a kernel
        # with none (02: the direct calls must show the gain too); a fair vector_add that tunes its block
        # size per n (03: launches are matched by kernel name, not grid).
        ("round33/01-trick_pace_kernel_by_call_rank_in_every_call_sets_the_yardstick",
         Expect("graded", points={"step2.timer": 0}, total=(40, 50))),
        ("round33/02-trick_memset_inside_launch_1_fakes_the_cache_gain",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50))),
        ("round33/03-fair_block_size_tuned_per_n_by_events_never_waited", FULL),
        # Round 34: a vector_add that tries a scalar and a float4 kernel at each new n and keeps the faster
        # launches other kernels in time_launches than in the grader's calls; lab1.cuh says since session 20
        # that every call at one n launches the same kernels (the grid may change), and step 2 fails.
        ("round34/01-fair_kernel_chosen_per_n_by_events_never_waited",
         Expect("graded", points={"step2.timer": 0}, total=(50, 50), says=["where a call of your vector_add at the same n runs"])),
    ],
    "lab2": [
        # Its column sums put a chunk of 64 rows on each block of grid y: past 4194240 rows the
        # launch fails. Fair while the largest shape had 65537 rows; since session 21 the column
        # sums run on 67108897 x 8 (check_sums_tall) and step 3's columns fail (not yet run on a GPU).
        ("round6/04-fair_float4_rows_atomic_columns", Expect("graded", points={"step3.columns": 0})),
        # 32-bit offsets: wrong past 2^32 elements, which the header's std::size_t sizes allow.
        ("round6/05-subtle_int_index", Expect("graded", points={"step3.rows": 0, "step3.columns": 0},
                                              total=(0, 70))),
        # Round 7: unsigned offsets, wrong in the last row and in every column past 2^32 elements.
        ("round7/04-subtle_unsigned_offsets", Expect("graded", points={"step1.rows": 0, "step1.columns": 0,
                                                                        "step3.rows": 0, "step3.columns": 0},
                                                     total=(0, 50))),
        # Round 22: float4 rows, columns through a stream-ordered scratch buffer (fair; its column sums
        # took 1.86x the reference's time in run 95: speed points in proportion); column sums zeroed on
        # the legacy default stream, unordered with the kernel on the runner's non-blocking stream: a
        # race the memset nearly always won (100 in run 95) until the order shake made it lose in half
        # the untimed calls.
        # (Its chunks of 128 rows on grid y stop past 8388480 rows: since session 21 the tall column
        # sums fail step 3's columns, not yet run on a GPU.)
        ("round22/01-fair_float4_warp_rows_columns_via_mallocasync",
         Expect("graded", points={"step3.columns": 0}, total=(70, 85))),
        ("round22/02-subtle_column_zeroing_on_the_legacy_default_stream",
         Expect("graded", points={"step3.columns": 0})),
        # Round 27: #pragma unroll 4 on the lane loop serialises the warp's loads (slower, so speed points
        # in proportion); a block per row with a shared tree and per-lane column atomics. Round 28: the
        # order shake holds only the runner's stream and the legacy stream, and a function that waits at
        # its start waits it out (both open limits, grader/README.md); legacy zeroing joined by an event,
        # work on the per-thread and on a blocking stream of its own joined by events, and zeroes copied
        # synchronously from pinned memory are ordered.
        ("round27/01-fair_warp_rows_pragma_unroll_4", Expect("graded", total=(90, 100))),
        ("round27/02-fair_block_per_row_shared_tree_columns_lane_atomics", Expect("graded", total=(95, 100))),
        # Its zeroing stream, made in the first call and kept, is held with the legacy stream from the
        # second call on (session 18): the race comes out wrong in half the calls.
        ("round28/01-subtle_zeroing_on_a_nonblocking_stream_of_its_own", Expect("graded", points={"step3.columns": 0})),
        ("round28/02-subtle_device_sync_first_then_legacy_zeroing", FULL),
        ("round28/03-fair_legacy_zeroing_joined_by_an_event", FULL),
        ("round28/04-fair_work_on_other_streams_each_joined_by_events", FULL),
        ("round28/05-fair_zeroes_copied_synchronously_from_pinned_memory", FULL),
        # Round 30 (run 126): a float2 tail counted twice fails on the 1000 x 38 shape added for it;
        # sums zeroed by the first chunk's blocks race between blocks, which no shake reaches (open);
        # two passes through a scratch buffer the memory pool keeps are fair.
        ("round30/01-subtle_vector_width_dispatch_float2_tail_masked_to_four", Expect("graded", points={"step3.rows": 0})),
        ("round30/02-subtle_column_sums_zeroed_by_the_first_chunks_blocks", FULL),
        ("round30/03-fair_two_pass_columns_stream_ordered_scratch_kept_by_the_pool", FULL),
        # Round 31 (session 19's regressions for the order shake): the legacy stream and a stream of
        # the build's own race (held the same time until then), a racing stream made before eight more
        # (out of the eight newest held until then), and fourteen streams joined by events (fair).
        ("round31/01-subtle_legacy_zeroing_summed_on_a_stream_of_its_own",
         Expect("graded", points={"step3.columns": 0})),
        ("round31/02-subtle_racing_stream_made_before_eight_more", Expect("graded", points={"step3.columns": 0})),
        ("round31/03-fair_rows_sliced_over_twelve_streams_joined_by_events", Expect("graded", total=(95, 100))),
        # Round 32 (run 136: 100): the fork event recorded before the zeroing, so both sides of the race
        # started from the same hold and the shake did not pull them apart. Since session 20 a shaken
        # call's every event record is followed on its stream by a hold longer than any shake's, so the
        # atomics that wait for the event run before the zeroing that follows it.
        ("round32/01-subtle_fork_event_recorded_before_the_zeroing", Expect("graded", points={"step3.columns": 0})),
        # Round 34: the mirror race, a join event recorded on the wrong stream, so the zeroing on a side
        # stream races the atomics. A hold after every record gave the recording stream's later work a
        # head start in every call; since session 20 it holds only every other pair of calls, and the
        # pairs without it catch this file as before.
        ("round34/01-subtle_zeroed_on_a_side_stream_joined_by_an_event_recorded_on_stream",
         Expect("graded", points={"step3.columns": 0})),
        # Round 35: column chunks on grid y with no clamp, wrong past 65535 chunks of rows; a cooperative
        # kernel that zeroes and sums with a grid sync between (fair).
        ("round35/01-subtle_column_chunks_on_grid_y_unclamped_fail_past_16m_rows",
         Expect("graded", points={"step3.columns": 0})),
        ("round35/02-fair_column_sums_in_one_cooperative_kernel_grid_sync", Expect("graded", total=(95, 100))),
        # Round 36 (run 156): chunks of 512 rows on grid y, which the first tall column shape
        # (16781315 rows) let through; 67108897 rows catch up to 1024. Column tiles on grid y, wrong
        # past 2,097,120 columns (100 in run 156): since session 22 the column sums are also checked
        # on 2 x 67108897 and 2 x 67108896 (grading::kWideForColumns), tiles of up to 1024 columns.
        ("round36/01-subtle_column_chunks_of_512_rows_on_grid_y_pass_the_16m_row_tall_check",
         Expect("graded", points={"step3.columns": 0})),
        ("round36/02-subtle_column_tiles_on_grid_y_after_the_tall_hint_fail_past_2m_columns",
         Expect("graded", points={"step3.columns": 0})),
        # Round 37 (not yet run on a GPU): tiles of 1024 columns on grid y (01) and a float4 path for
        # widths divisible by 4 with tiles on y (02) fail the wide shapes. Open, scoring 100: a
        # thread-per-column path for at most 256 rows hides tiles on y from 2-row shapes (03), an int
        # column number wraps only past 2^31 columns (04), chunks of 2048 rows on y (05).
        ("round37/01-subtle_column_tiles_of_1024_on_grid_y_pass_the_2_x_16m_wide_check_fail_past_67m_columns",
         Expect("graded", points={"step3.columns": 0})),
        ("round37/02-subtle_float4_column_path_only_for_widths_multiple_of_4_tiles_on_grid_y_fail_past_8m_columns",
         Expect("graded", points={"step3.columns": 0})),
        ("round37/03-subtle_few_rows_take_a_thread_per_column_path_so_the_2_row_wide_check_misses_tiles_on_grid_y",
         FULL),
        ("round37/04-subtle_int_column_number_wraps_past_2_31_columns_no_shape_that_wide", FULL),
        ("round37/05-subtle_column_chunks_of_2048_rows_on_grid_y_pass_the_67m_row_tall_check", FULL),
    ],
    "lab3": [
        # Round 22: a count computed in double inside the compensated kernel fails step 2 (the guide
        # says to count in integers); in step 1's kernel only, it no longer does (only the kernels
        # row_sums_compensated launches are judged). Terms below 1 and the rest added apart in plain
        # float: each mixed row is scaled by its own power of two, and no fixed split helps.
        # (Both block-per-row files lose a little of step 1's speed points: 1.33x in run 95.)
        ("round22/01-fair_kahan_iterations_from_ceil_of_double_division",
         Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        ("round22/02-fair_step1_template_ceil_double_fails_step2", FULL),
        ("round22/03-trick_two_magnitude_accumulators_no_compensation",
         Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        # Round 23: honest Kahan on the accuracy check's 128 rows, a kernel adding in double on larger
        # matrices: every call of row_sums_compensated is judged, the one past 2^32 elements too.
        ("round23/01-trick_few_rows_kahan_many_rows_double",
         Expect("graded", points={"step2.accuracy": 0}, total=(60, 75))),
        # The closed form (1 - x^513) / (1 - x) where x^513 vanishes: with the timed runs' x near 1
        # it never does, so the file runs Horner's loop and earns what its time earns (98.96, run 54;
        # before the x changed, the arithmetic floor refused it: 80, run 51).
        ("round6/07-trick_polynomial_closed_form", Expect("graded", points={"step3.correct": 20}, total=(80, 100))),
        ("round6/08-fair_neumaier_block_per_row", FULL),
        # Float sums added up in double pass every check of the results and the clock; the
        # grader reads the kernels: floats computed on in double fail step 2 (machine_code.hpp).
        ("round6/06-trick_compensated_is_double", Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        # Round 12 (red team 12, against the machine-code checks): floats made doubles exactly
        # without a conversion instruction, or in a kernel of their own; two PTX statements on
        # one line; a fatbin registered at run time, and a decoy fatbin placed by hand (both
        # named by the scan).
        ("round12/01-trick_widen_without_f2f", Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        ("round12/02-trick_widen_and_add_in_separate_kernels", Expect("graded", points={"step2.accuracy": 0},
                                                                     total=(0, 75))),
        ("round12/04-trick_ptx_two_statements_per_line", Expect("graded", points={"step2.accuracy": 0}, total=(0, 75))),
        ("round12/05-trick_hidden_fatbin_registered_at_run_time", Expect("forbidden API", total=(0, 0))),
        ("round12/06-trick_decoy_fatbin_for_newer_arch", Expect("forbidden API", total=(0, 0))),
        # Round 13 (round13/README.md): additions in double in a helper kept apart, in an extern "C"
        # kernel, or behind a decoy fatbin sized to swallow the real one: step 2 fails. A float
        # kernel calling sinf (products in double in its slow path) is fair.
        ("round13/01-trick_noinline_double_helper", Expect("graded", points={"step2.accuracy": 0}, total=(0, 75))),
        ("round13/04-trick_extern_c_kernel_in_double", Expect("graded", points={"step2.accuracy": 0}, total=(0, 75))),
        # (The decoy's section attribute is named by the scan since red team 14.)
        ("round13/05-trick_decoy_fatbin_swallows_real", Expect("forbidden API", total=(0, 0))),
        ("round13/06-fair_sinf_in_a_float_kernel", FULL),
        # Round 14 (round14/README.md): the fatbin nvcc registers swapped for other code, by a
        # pragma or by a constructor writing over it (named by the scan); additions in double by
        # atomics, the tensor cores, or behind a label in inline PTX: step 2 fails. Floats passed
        # as their bits beside a double parameter passed while types decided (types are not data);
        # a kernel that row_sums_compensated launches may not add in double at all, so it fails.
        ("round14/01-trick_redefine_extname_registers_other_code", Expect("forbidden API", total=(0, 0))),
        ("round14/06-trick_constructor_patches_fatbin", Expect("forbidden API", total=(0, 0))),
        ("round14/03-trick_double_atomics_add", Expect("graded", points={"step2.accuracy": 0}, total=(0, 75))),
        ("round14/04-trick_dmma_tensor_core_sum", Expect("graded", points={"step2.accuracy": 0}, total=(0, 75))),
        ("round14/05-trick_ptx_label_hides_statement", Expect("graded", points={"step2.accuracy": 0}, total=(0, 75))),
        ("round14/02-trick_signature_hides_floats", Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        # Round 15: two honest messages the scan once joined into a directive (fair); floats widened
        # through a __device__ buffer and added by step 1's double kernel: no kernel takes both, but
        # row_sums_compensated launches one that adds in double (the launch watch), so step 2 fails.
        ("round15/07-fair_messages_that_end_and_start_with_directives", FULL),
        ("round15/03-trick_widen_through_device_global", Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        # Round 16: a double kernel loaded at run time by cudaLibraryLoadData, named through an asm
        # label, token pasting with lines hidden from the second look, a macro expanded in a system
        # header, or behind a u8R raw string: each build imports the loader (forbidden). Found by
        # walking libcudart's symbols in memory, it imports nothing; its kernel, launched by
        # row_sums_compensated, is not code of the build (the launch watch), so step 2 fails; and since
        # session 15 every later call fails too (the module stays loaded): only step 1 scores (run 101).
        # Floats added in double by the tensor memory accelerator's untyped reduction: step 2 fails.
        ("round16/01-trick_asm_label_loads_double_kernel_at_run_time", Expect("forbidden API", total=(0, 0))),
        ("round16/02-trick_self_include_hides_lines_from_second_look", Expect("forbidden API", total=(0, 0))),
        ("round16/03-trick_digraph_line_directive", Expect("forbidden API", total=(0, 0))),
        ("round16/04-trick_spliced_line_directive", Expect("forbidden API", total=(0, 0))),
        ("round16/05-trick_macro_expanded_in_system_header", Expect("forbidden API", total=(0, 0))),
        ("round16/06-fair_device_function_named_section", FULL),
        ("round16/07-trick_export_found_in_memory_no_name_no_import",
         Expect("graded", points={"step2.accuracy": 0}, total=(35, 35), says=[MODULES_OF_ITS_OWN])),
        ("round16/08-trick_u8_raw_string_hides_rest_of_line", Expect("forbidden API", total=(0, 0))),
        ("round16/09-trick_tma_tensor_reduction_adds_in_double",
         Expect("graded", points={"step2.accuracy": 0}, total=(0, 75))),
        # Round 17: nvcc's handle for the registered fatbin pointed at other bytes after the runner's
        # guard let it through, through nvcc's variable or a second registration made by weakrefs;
        # names hidden behind a digit separator. Each names nvcc's symbols (forbidden); past the
        # scan, the guard refuses each build when it is loaded (host.runner_registers_only_the_files_code).
        ("round17/01-trick_nvcc_handle_swapped_after_guard", Expect("forbidden API", total=(0, 0))),
        ("round17/02-trick_digit_separator_hides_the_handle_name", Expect("forbidden API", total=(0, 0))),
        ("round17/03-trick_weakref_registration_handle_swapped", Expect("forbidden API", total=(0, 0))),
        # Round 20 (round20/README.md), against step 2's accuracy and time: plain float split among
        # many partial sums passed the spread rows (2.6 u and 4.4 u at worst); the mixed rows leave
        # them far out (23 u and 84 u at the least, simulated). Sums in 64-bit fixed point were
        # exact without compensation, until each mixed row was scaled by its own power of two
        # (session 14): a fixed unit of 2^-34 holds a scaled row in a few units (run 96: 75). Kahan
        # per thread, combined by shared atomics, leaves a few mixed rows at 10-16 u: the median
        # rule passes it.
        ("round20/01-trick_plain_float_block_per_row", Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        ("round20/02-trick_step1_eight_accumulators_reused",
         Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        ("round20/03-trick_int64_fixed_point_exact", Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        ("round20/04-fair_kahan_threads_added_by_shared_atomics", Expect("graded", total=(95, 100))),
        # Round 21 (round21/README.md), against the launch watch: a double kernel launched from a
        # thread of the file's own after the call returned; compensated sums kept from the double
        # version's call on the same values; a kernel loaded at run time under the name of a kernel
        # of the build. Each fails step 2: launches from other threads and modules loaded once
        # calls are made fail the call, and the compensated sums are asked for first. The module
        # stays loaded, so since session 15 every later call fails too (run 101: 35).
        # (Since session 17 step 2 first checks the compensated sums on step 1's shapes: the thread's
        # late launches can land in step 3's first call, which then fails too: 55 in run 118.)
        ("round21/01-trick_double_kernel_launched_after_the_watch_window",
         Expect("graded", points={"step2.accuracy": 0}, total=(35, 75))),
        ("round21/02-trick_compensated_sums_kept_from_row_sums_double",
         Expect("graded", points={"step2.accuracy": 0}, total=(70, 75))),
        ("round21/03-trick_run_time_kernel_named_as_the_builds_kahan_kernel",
         Expect("graded", points={"step2.accuracy": 0}, total=(35, 35), says=[MODULES_OF_ITS_OWN])),
        # PTX spelled to mislead a reader of PTX text: machine code is read on every GPU.
        ("round15/08-trick_ptx_spelled_to_mislead_a_text_reader",
         Expect("graded", points={"step2.accuracy": 0}, total=(0, 75))),
        # Round 7: four Horner chains a thread (fair); Horner cut short where |x| is small, whose
        # cut (2^-17) is far outside double's tolerance; double sums with int offsets, which fault
        # past 2^31 elements and end the GPU context (run 54: 100, 60 and 55).
        ("round7/01-fair_horner_ilp4", FULL),
        ("round7/02-trick_warp_truncated_horner", Expect("graded", points={"step3.correct": 0}, total=(60, 60))),
        ("round7/03-subtle_double_int_offset", Expect("GPU error", points={"step1.correct": 0}, total=(0, 80))),
        # Round 27: Kahan lanes that begin at their first term count it twice on rows shorter than a
        # warp: step 2 now checks the compensated sums on step 1's shapes first. Two fair compensated
        # sums. Round 28: the polynomial of one type on the legacy stream after a countdown set on the
        # given stream: each function is shaken both ways (the parity is per function), so both fail.
        ("round27/01-subtle_kahan_lane_seeded_with_its_first_term",
         Expect("graded", points={"step2.accuracy": 0, "step2.speed": 0})),
        ("round27/02-fair_block_per_row_kahan_two_sum_tree_fadd_rn", FULL),
        ("round27/03-fair_neumaier_warp_per_row_1024_thread_blocks", Expect("graded", total=(95, 100))),
        # The race shows only at the one call of n = 2^24 after a smaller one, and only where that call
        # gets the parity that holds `stream` longer: from the random start, in half the runs (run 125:
        # file 02 passed step 3's check, file 01 failed it). Open: grader/README.md.
        ("round28/01-subtle_float_horner_on_the_default_stream_after_a_countdown_on_stream",
         Expect("graded", total=(80, 100))),
        ("round28/02-subtle_double_horner_on_the_default_stream_after_a_countdown_on_stream",
         Expect("graded", total=(80, 100))),
        # Round 30: an int grid-stride index in the polynomial wraps only past 2^31 elements (100 in
        # run 126; step 3 checks n = 2^31 + 4099 since session 19); compensated chunk pairs merged by
        # a TwoSum kernel are fair.
        ("round30/01-subtle_polynomial_int_grid_stride_index",
         Expect("graded", points={"step3.correct": 0}, total=(80, 80))),
        ("round30/02-fair_compensated_chunk_pairs_then_two_sum_merge_kernel", FULL),
        # Round 32 (run 136: 100 each). Session 20: the float polynomial is checked at 2^32 + 4099, where
        # an index made of a 32-bit product wraps (01), and every element of y must be written, counted
        # on the GPU, where 64 sampled chunks almost never read the one element left at 2^31 - 1 (02).
        ("round32/01-subtle_size_t_index_from_a_32_bit_product",
         Expect("graded", points={"step3.correct": 0}, total=(80, 80))),
        ("round32/02-subtle_int_max_launches_stepped_by_2_31_skip_one_element",
         Expect("graded", points={"step3.correct": 0}, total=(80, 80))),
        # Round 33: one 8-byte word per thread from a 32-bit product wraps at 2^32 threads, 2^32 doubles:
        # double is checked past 2^32 where the GPU has 77 GB free (an H200; step3.correct 0, 80), not on
        # an 80 GB H100 (run 141: 100, open). In float it wraps only at 2^33 elements, never checked.
        ("round33/01-subtle_one_8_byte_word_per_thread_index_from_a_32_bit_product",
         Expect("graded", total=(80, 100))),
        # Round 35: step 1's float row sums added up in double (`auto sum = 0.0`): lab3.cuh says float
        # sums add in float, but no check sees it (open: a machine-code check without data flow failed
        # honest code, red team 36's file 02), and it keeps 100 (run 150).
        ("round35/01-subtle_auto_accumulator_from_double_literal_float_sums_in_double", FULL),
        # Round 36 (run 155): the same widening split over two kernels (open; its step 1 is
        # slow, so its speed points go), and the honest printf beside a count in double that the
        # withdrawn check failed.
        ("round36/01-subtle_float_sums_widened_and_added_in_double_by_separate_kernels",
         Expect("graded", total=(80, 100))),
        ("round36/02-fair_never_taken_printf_beside_a_count_in_double", FULL),
    ],
    "lab4": [
        ("11-mitm_fake_pings_all_naive", Expect("forbidden API", total=(0, 0))),  # fork and execl pasted: see lab 1
        # Padding is slower on the H100 (step 2 at 1.32x in run 49): a little of step 2's speed points.
        ("round6/10-fair_padded_tiles", Expect("graded", total=(95, 100))),
        ("round6/11-subtle_missing_second_barrier", Expect("graded", points={"step2.correct": 0}, total=(0, 45))),
        # Round 12: the naive kernel everywhere, with a lone shared store, or an address converted
        # to shared: step 2 fails and blocks 3, 4 and 6. So does the naive kernel for the tiled step
        # beside an honest step 4 and 6, since the runner's launch watch names the kernels the tiled
        # step launches (it passed while the check read the whole build).
        ("round12/01-trick_naive_with_one_shared_store", Expect("graded", points={"step2.correct": 0}, total=(0, 45))),
        ("round12/04-trick_ptx_cvta_to_shared", Expect("graded", points={"step2.correct": 0}, total=(0, 45))),
        ("round12/02-trick_naive_tiled_step4_supplies_shared", Expect("graded", points={"step2.correct": 0},
                                                                      total=(0, 45))),
        # Round 21: the tiled kernel's launch captured into a graph never run, beside a kernel
        # without shared memory that does the work; and a fair file that launches the tiled kernel
        # as a CUDA graph. A graph names no kernel that surely runs, so both fail step 2 (the guide
        # says to launch kernels directly).
        ("round21/01-trick_tiled_launch_captured_never_run", Expect("graded", points={"step2.correct": 0},
                                                                  total=(0, 45))),
        ("round21/02-fair_tiled_kernel_launched_as_a_cuda_graph", Expect("graded", points={"step2.correct": 0},
                                                                         total=(0, 45))),
        # Round 13: tiles written by one __noinline__ helper and read by another (fair).
        ("round13/03-fair_noinline_tile_helpers", Expect("graded", points={"step2.correct": 15}, total=(55, 100))),
        # Round 22: tiles filled by asynchronous copies (fair); step 4 with a fixed-tile kernel per
        # width, no launch given the tiles' bytes: step4.correct fails (the launch watch reads them).
        ("round22/01-fair_tiles_loaded_by_pipeline_memcpy_async", Expect("graded", points={"step2.correct": 15},
                                                                         total=(90, 100))),
        # Its timed runs use the fixed tiles too, so since session 17 its step 4 speed is unscored (run 117).
        ("round22/02-subtle_dynamic_step_dispatches_to_static_tiles",
         Expect("graded", points={"step4.correct": 0, "step4.speed": 0}, total=(75, 85))),
        # Round 23: an empty kernel launched only to ask for the tiles' bytes does not count (it stages
        # nothing in shared memory); nor do fixed tiles in a kernel that also asks for the bytes (its
        # static shared memory, since session 15); a fair file through cudaLaunchKernelExC with padded tiles.
        ("round23/02-trick_empty_kernel_asks_for_the_tile_bytes", Expect("graded", points={"step4.correct": 0},
                                                                         total=(70, 90))),
        ("round23/01-trick_fixed_tiles_given_bytes_they_never_use",
         Expect("graded", points={"step4.correct": 0}, total=(70, 90), says=["bytes of fixed __shared__ arrays"])),
        ("round23/03-fair_launch_kernel_exc_opt_in_padded_tiles", Expect("graded", points={"step4.correct": 10},
                                                                         total=(80, 100))),
        # Round 24 (red team 24, against bd18075): fixed tiles written through generic pointers (ST,
        # not STS) beside a one-warp decoy that stages a value in the extern array and gets the
        # tiles' bytes: step 4 fails, since every launched kernel's fixed shared memory is read, not
        # only a staging kernel's. A dynamic multiply after a transpose of b through a fixed 32 x 33
        # tile: fair code, but the guide says no kernel matmul_dynamic launches may hold a tile or
        # more in fixed arrays, so step 4 fails with that message. A constructor that unregisters the
        # runner's kernel-less fatbin through libcudart's own export and loads a fixed-tile kernel
        # named like the build's dynamic one: the runtime reports that unregistration to CUPTI, so the
        # module is counted and every call fails.
        ("round24/01-trick_fixed_tiles_stored_through_generic_pointers_beside_a_decoy",
         Expect("graded", points={"step4.correct": 0}, total=(80, 95), says=["bytes of fixed __shared__ arrays"])),
        ("round24/02-fair_b_transposed_through_a_fixed_tile_then_dynamic_tiles",
         Expect("graded", points={"step4.correct": 0}, total=(80, 95), says=["No kernel matmul_dynamic launches may"])),
        ("round24/03-trick_constructor_module_hidden_by_unregistering_the_runners_empty_fatbin",
         Expect("graded", points={"step4.correct": 0}, total=(0, 5), says=[MODULES_OF_ITS_OWN])),
        # Red team 25 (round25/README.md): red team 24's file 03, its PTX copied over the bytes of the
        # runner's dropped kernel-less fatbin and loaded from that pointer, which the runner remembered
        # as a registered image when it compared pointers only. registered_image now compares the
        # bytes with a copy taken at registration: the module is the build's own, and every call fails.
        ("round25/01-trick_constructor_module_loaded_from_the_runners_registered_fatbin_bytes",
         Expect("graded", points={"step4.correct": 0}, total=(0, 5), says=[MODULES_OF_ITS_OWN])),
        # Round 27: fair variants (padded dynamic tiles, a template tile in the extern array chosen on
        # the host, a zero-fill helper, double-buffered tiles); 05 is 03 with its helper named read,
        # which the source scan refused until POSIX names were left to the imports. Files that skip the
        # optional step 6 lose its points.
        ("round27/01-fair_dynamic_padded_tiles_four_rows_per_thread", Expect("graded", total=(95, 100))),
        ("round27/02-fair_template_tile_in_extern_shared_dispatch",
         Expect("graded", points={"step6.speed": 0}, total=(85, 90))),
        ("round27/03-fair_zero_fill_accessor_helper_named_at", Expect("graded", total=(95, 100))),
        ("round27/04-fair_double_buffered_tiles_one_barrier_per_phase",
         Expect("graded", points={"step6.speed": 0}, total=(85, 90))),
        ("round27/05-fair_zero_fill_helper_named_read", Expect("graded", total=(95, 100))),
        # Round 30 (run 126): one template kernel for steps 2 and 4 is fair; `<` for `<=` in the tile
        # choice fails the 8 KB device added for it; one kernel choosing its tiles by a run-time flag keeps
        # step 2's fixed array in step 4's kernel (the guide forbids it) and is 1.27x on step 2.
        ("round30/01-fair_one_kernel_template_for_steps_2_and_4", FULL),
        ("round30/02-subtle_tile_choice_strict_shared_memory_comparison",
         Expect("graded", points={"step4.tile_choice": 0}, total=(95, 95))),
        ("round30/03-fair_one_kernel_for_steps_2_and_4_by_a_run_time_flag",
         Expect("graded", points={"step4.correct": 0}, total=(85, 90))),
        # Round 35: step 6 with register tiles of other shapes (fair).
        ("round35/01-fair_register_tiles_64x64_four_by_four", Expect("graded", total=(90, 100))),
        ("round35/02-fair_register_tiles_contiguous_patches_float4_shared_reads", Expect("graded", total=(95, 100))),
    ],
    "lab5": [
        ("21-mitm_fake_pings_thread_per_row", Expect("forbidden API", total=(0, 0))),  # pasted names: see lab 1
        ("22-early_reply_hidden_in_freeze", Expect("forbidden API", total=(0, 0))),
        ("round6/13-fair_column_major_split_atomic", FULL),
        # Round 12: alpha and beta staged in shared memory, x read from global memory: the check
        # is met by the letter (grader/README.md says so).
        ("round12/01-trick_shared_scalars_not_x", Expect("graded", total=(90, 100))),
        # Round 13: x staged, then read through a pointer that may be global (fair).
        ("round13/02-fair_stage_flag_generic_pointer", Expect("graded", points={"step3.correct": 15},
                                                              total=(70, 100))),
        # gemv_shared_x calls the column-major GEMV: no kernel of the build uses shared memory.
        ("round6/12-trick_shared_x_without_shared", Expect("graded", points={"step3.correct": 0}, total=(70, 85))),
        ("round6/14-subtle_shared_x_missing_barrier", Expect("graded", points={"step3.correct": 0}, total=(0, 75))),
        # Round 21: x staged by a kernel launched as a CUDA graph fails step 3 (no kernel named).
        ("round21/01-fair_shared_x_kernel_launched_as_a_cuda_graph", Expect("graded", points={"step3.correct": 0},
                                                                            total=(0, 85))),
        # Round 7: every GEMV with unsigned offsets; step 1 fails and the later steps are blocked.
        ("round7/05-subtle_unsigned_offsets", Expect("graded", points={"step1.correct": 0}, total=(0, 0))),
        # Round 22: the window loads x past cols, into the guard zone after it, and never uses what it
        # read: no result shows it (an open limit, grader/README.md).
        ("round22/01-subtle_window_loads_x_past_cols", FULL),
        # Round 27: the last window sized cols % 128, wrong where cols is a multiple of 128 (a 256 x 2048
        # shape now); two fair windows; 04 is 03 with its methods named write and read (the scan's false
        # positive). Round 28: the shared-x kernel only where a stream is busy at entry (the shake's wait),
        # step 2's kernel in the timed runs: the timed runs are judged call by call, no speed points.
        ("round27/01-subtle_last_window_width_from_cols_mod_window", Expect("graded", points={"step3.correct": 0})),
        ("round27/02-fair_window_of_1024_in_dynamic_shared_loaded_by_a_loop", FULL),
        ("round27/03-fair_window_struct_with_store_load_methods", FULL),
        ("round27/04-fair_window_struct_write_read", FULL),
        ("round28/01-trick_shared_x_only_while_the_stream_is_held",
         Expect("graded", points={"step3.speed": 0}, total=(90, 90))),
        # Round 30 (run 126): a warp-synchronous volatile tail races only where the hardware reorders
        # (open: compute-sanitizer's racecheck is not run); one leftover row of four per thread fails on
        # the 1002 x 1003 shape added for it.
        ("round30/01-subtle_block_per_row_fast_warp_synchronous_volatile_tail", FULL),
        ("round30/02-fair_window_by_cg_memcpy_async_fast_rows_in_double2", FULL),
        ("round30/03-subtle_column_major_four_rows_per_thread_one_leftover_row",
         Expect("graded", points={"step4.correct": 0})),
        # Round 34: beta scaled on a side stream, the join event recorded on the wrong stream (the
        # mirror race of round 32's lab 2 file): caught in the pairs of calls without the record hold.
        ("round34/01-subtle_beta_scaled_on_a_side_stream_joined_by_an_event_recorded_on_stream",
         Expect("graded", points={"step4.correct": 0})),
        # Round 35: a warp's row from a 32-bit thread index wraps past 2^27 rows; step 4 column-major with
        # eight column slices per row, and a warp per row reading x through step 3's window (fair).
        ("round35/01-subtle_warp_index_from_32_bit_thread_index_wraps_at_2_27_rows",
         Expect("graded", points={"step4.correct": 0})),
        ("round35/02-fair_column_major_eight_column_slices_per_row", Expect("graded", total=(95, 100))),
        ("round35/03-fair_warp_per_row_x_through_shared_window", Expect("graded", total=(95, 100))),
        # Round 36 (run 152): eight threads a row numbered from a 32-bit thread number
        # wrap only past 2^29 rows, beyond the tall shape (open: 100).
        ("round36/01-subtle_eight_threads_per_row_index_from_32_bit_thread_number_wraps_at_2_29_rows", FULL),
    ],
}


def red_team_entries(lab: str) -> List[Entry]:
    entries = []
    for name, expect in RED_TEAM.get(lab, []):
        round_folder, _, submission = name.rpartition("/")
        folder = os.path.join("grader", "corpus", "red-team", round_folder, lab, submission)
        (file_name,) = os.listdir(os.path.join(SOURCE_DIR, folder))
        entries.append(Entry(f"red_team_{name.replace('/', '_')}", expect, source=os.path.join(folder, file_name)))
    return entries


def lab_files(lab: str) -> Tuple[str, str]:
    """(skeleton, reference) paths of @p lab."""
    folder = next(f for f in sorted(os.listdir(os.path.join(SOURCE_DIR, "labs"))) if f.split("_")[0] == lab)
    skeleton_dir = os.path.join(SOURCE_DIR, "labs", folder)
    reference_dir = os.path.join(SOURCE_DIR, "solutions", folder)
    name = next(f for f in os.listdir(reference_dir) if f.endswith(".cu"))
    return os.path.join(skeleton_dir, name), os.path.join(reference_dir, name)


def replace_once(text: str, find: str, replace: str, where: str) -> str:
    count = text.count(find)
    if count != 1:
        raise SystemExit(f"corpus {where}: the text to replace occurs {count} times, not once: {find[:60]!r}")
    return text.replace(find, replace)


def make_source(entry: Entry, lab: str, skeleton: str, reference: str) -> str:
    original = os.path.join(SOURCE_DIR, entry.source) if entry.source else skeleton if entry.from_skeleton else reference
    with open(original, encoding="utf-8") as handle:
        text = handle.read()
    for find, replace in entry.edits:
        text = replace_once(text, find, replace, f"{lab}/{entry.name}")
    if entry.statement:
        anchor = LABS[lab]["anchor"]
        text = replace_once(text, anchor, anchor + entry.statement, f"{lab}/{entry.name} (anchor)")
    return entry.prelude + text


def corpus(lab: str) -> List[Entry]:
    """The lab's entries in grading order: each GPU-hostile one followed by the reference."""
    spec = LABS.get(lab)
    if spec is None:
        # A lab with no entries here yet: its reference must still get full marks in the sandbox.
        return [Entry("reference", FULL)]
    ordered = []
    for entry in ([Entry("reference", FULL)] + spec["entries"] + red_team_entries(lab) +
                  hostile_entries({"all": spec.get("full", False)}, spec["first"])):
        ordered.append(entry)
        if entry.gpu_hostile:
            ordered.append(Entry(f"reference_after_{entry.name}", FULL))
    return ordered


# Where a student's file goes in each layout grade.py reads (grader/memlab_grader/layouts.py);
# every layout gives the rows the same names, so one expected.json serves them all.
# (The Canvas user ids are made up: 1000 and on.)
LAYOUTS = {
    "folders": lambda lab, number, student, name, in_course: os.path.join(student, name),
    "github": lambda lab, number, student, name, in_course: os.path.join(f"{lab}-{student}", in_course),
    "canvas": lambda lab, number, student, name, in_course: f"{student}_{1000 + number}_{5000 + number}_{name}",
    "zips": lambda lab, number, student, name, in_course: f"{student}.zip",
}


def build(lab: str, out: str, copies: int = 1, only: Optional[List[str]] = None, layout: str = "folders") -> str:
    skeleton, reference = lab_files(lab)
    submissions = os.path.join(out, "submissions")
    shutil.rmtree(submissions, ignore_errors=True)
    os.makedirs(submissions)
    expected = {}
    entries = [e for e in corpus(lab) if not only or e.name in only]
    name, in_course = os.path.basename(skeleton), os.path.relpath(skeleton, SOURCE_DIR)
    for copy in range(copies):
        for index, entry in enumerate(entries):
            student = f"{index:02d}-{entry.name}" + (f"-copy{copy + 1}" if copies > 1 else "")
            path = os.path.join(submissions, LAYOUTS[layout](lab, len(expected), student, name, in_course))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            source = make_source(entry, lab, skeleton, reference)
            if layout == "zips":
                with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
                    archive.writestr(f"{student}/{name}", source)
            else:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(source)
            expected[student] = entry.expect.__dict__
    path = os.path.join(out, "expected.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(expected, handle, indent=1)
    return submissions


# Found before anything runs, so the same with or without a GPU.
COMPILE_STAGE = {"compile error", "forbidden API", "missing file"}


def check(expected_path: str, results: str, sanitize: bool = False, without_gpu: bool = False) -> Tuple[bool, bool]:
    """Compares gradebook.csv with the expectations; prints a table.
    Returns (all as expected, GPU rows not run for want of a GPU).
    @p without_gpu: every submission that compiles must be 'not run: no GPU'."""
    with open(expected_path, encoding="utf-8") as handle:
        expected = json.load(handle)
    with open(os.path.join(results, "gradebook.csv"), encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    good, no_gpu = True, False
    details = check_details(results) if any(want.get("says") for want in expected.values()) else {}
    print(f"{'submission':<40} {'status':<22} {'total':>6}  verdict")
    for student, want in expected.items():
        row = rows.get(student)
        problems = []
        status = want["sanitize_status"] if sanitize and want.get("sanitize_status") else want["status"]
        if without_gpu and status not in COMPILE_STAGE:
            status = "not run: no GPU"
        if row is None:
            problems.append("no row in the gradebook")
        elif row["status"] == "not run: no GPU" and not without_gpu:
            no_gpu = True
        else:
            if row["status"] not in status.split("|"):
                problems.append(f"status {row['status']!r}, expected {status!r}")
            if status == "not run: no GPU":
                if row["total"] != "":
                    problems.append(f"total {row['total']} without a run (a row that has not run has no points)")
            elif status == want["status"]:  # the points expected are those of the plain run
                total = float(row["total"])
                low, high = want["total"] or (0, float("inf"))
                if not low <= total <= high:
                    problems.append(f"total {total:g}, expected {low:g}..{high:g}")
                for check_id, points in want["points"].items():
                    if float(row[check_id]) != points:
                        problems.append(f"{check_id} {row[check_id]}, expected {points:g}")
                for check_id, limit in want["below"].items():
                    if not float(row[check_id]) < limit:
                        problems.append(f"{check_id} {row[check_id]}, expected under {limit:g}")
                for text in want.get("says", []):
                    if not any(text in detail for detail in details.get(student, [])):
                        problems.append(f"no check says {text!r}")
        good = good and not problems
        shown = row["status"] if row else "-"
        print(f"{student:<40} {shown:<22} {row['total'] if row else '-':>6}  "
              f"{'as expected' if not problems and shown != 'not run: no GPU' else '; '.join(problems) or 'not run'}")
    return good, no_gpu


def check_details(results: str) -> Dict[str, List[str]]:
    """Each student's checks' details, from the outcome.json of their row (read once)."""
    folder = os.path.join(results, "students")
    details = {}
    for row_folder in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        path = os.path.join(folder, row_folder, "outcome.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as handle:
            outcome = json.load(handle)
        details[outcome.get("student")] = [check.get("detail") or "" for check in outcome.get("checks", [])]
    return details


def gpu_missing(build_dir: str, lab: str) -> bool:
    """The lab's grader answers 77 when no GPU can be used (before it looks at the build it is given)."""
    grader = os.path.join(build_dir, "labs", lab, f"{lab}_grader")
    if not os.access(grader, os.X_OK):
        raise SystemExit(f"corpus: {grader} is not built (cmake --build {build_dir} first)")
    return subprocess.run([grader, "--student", "/nonexistent"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 77


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("--lab", required=True, choices=known_labs())
    b.add_argument("--out", required=True)
    b.add_argument("--copies", type=int, default=1)
    b.add_argument("--only", default="")
    b.add_argument("--layout", choices=sorted(LAYOUTS), default="folders", help="how the submissions are laid out")
    c = sub.add_parser("check")
    c.add_argument("--expected", required=True)
    c.add_argument("--results", required=True)
    c.add_argument("--sanitize", action="store_true")
    t = sub.add_parser("test")
    t.add_argument("--lab", required=True, choices=known_labs())
    t.add_argument("--build", required=True)
    t.add_argument("--work", required=True)
    t.add_argument("--copies", type=int, default=1)
    t.add_argument("--only", default="")
    t.add_argument("--sanitize", action="store_true")
    t.add_argument("--layout", choices=sorted(LAYOUTS), default="folders",
                   help="lay the submissions out as GitHub Classroom's clones, Canvas's download or zips")
    t.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    t.add_argument("--without-gpu", action="store_true",
                   help="hide any GPU: compile and scan only, the rest must be 'not run: no GPU'")
    args = parser.parse_args()
    only = [name for name in getattr(args, "only", "").split(",") if name]

    if args.command == "build":
        build(args.lab, args.out, args.copies, only, args.layout)
        return 0
    if args.command == "check":
        return 0 if check(args.expected, args.results, args.sanitize)[0] else 1

    env = dict(os.environ, CUDA_VISIBLE_DEVICES="") if args.without_gpu else None
    if not args.without_gpu and gpu_missing(args.build, args.lab):
        print("skipped: the corpus is graded on a GPU; grader/tests cover the rest without one")
        return 77  # CTest's SKIP_RETURN_CODE
    submissions = build(args.lab, args.work, args.copies, only, args.layout)
    results = os.path.join(args.work, "results")
    shutil.rmtree(results, ignore_errors=True)
    command = [sys.executable, os.path.join(SOURCE_DIR, "grader", "grade.py"), "--lab", args.lab,
               "--submissions", submissions, "--out", results, "--jobs", str(args.jobs),
               "--kit", os.path.join(args.build, "grading", args.lab, "kit.json")]
    if args.sanitize:
        command.append("--sanitize")
    status = subprocess.run(command, env=env).returncode
    print(f"grade.py exited with {status}\n")
    good, _ = check(os.path.join(args.work, "expected.json"), results, args.sanitize, args.without_gpu)
    return 0 if good and status == (1 if args.without_gpu else 0) else 1


if __name__ == "__main__":
    sys.exit(main())
