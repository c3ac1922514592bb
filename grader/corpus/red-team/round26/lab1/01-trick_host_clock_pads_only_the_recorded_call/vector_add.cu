// Red team 26, lab 1, file 01 (trick): a timer with no CUDA events at all (steady_clock from the
// launch call's return to cudaStreamSynchronize's return, round 19 file 03's clock) passes step 2.
// time_launches tells the call with CUPTI's kernel records from the plain one by the host's cost
// of its own launch calls, and only there makes its kernels about 1.8 us longer, through a kernel
// argument: the GPU's own times then stand as far below this clock as they stand below the
// reference's events.
//
// What it does.
// - Every launch of vector_add_kernel (the reference's grid-stride kernel, plus an argument
//   pad_cycles) is timed on the host: how long the launch call itself took. The least such
//   time of the process (step 1's calls, the large rounds, the runner's own calls of vector_add)
//   is the plain cost of a launch, about 2-4 us.
// - time_launches first synchronises the stream (the flush and hold wait out, so launch 1 does
//   not see the hold). Where a, b and c fit in L2 (the L2/2 rounds) it reads, per launch, the
//   host's clock from the launch call's return to cudaStreamSynchronize's return. On an H100 that
//   reads 12.5 us for launch 1 and 8.9 us warm (run 111, row 16: round 19 file 03, the same clock).
//   - If launches 1 and 2 each took more than the plain cost + 6 us in the launch call, the call
//     is the recorded one: CUPTI's kernel records add about 12 us to every launch on the host
//     (run 110; the grader's own comment at labs/lab1_caching/grading/timer.cpp:181-184). Then
//     launches 3-5 run with pad_cycles = 1.8 us at the GPU's peak clock: every thread of the
//     one-wave grid spins that long before its first load, so each kernel is about 1.8-2.2 us
//     longer by the records. Launches 1 and 2 are never padded.
//   - In the plain call nothing is padded: the times reported are the clock's true readings.
// - At the large footprints (never recorded) it is round 19 file 03 unchanged: one host span over
//   all launches, shared out evenly, then 0.3x the span idled on the host (run 111, row 16:
//   share 0.81, launch 1 over the rest 1.00).
// - vector_add, the exported function, never pads.
//
// Why it passes the current grader (HEAD 45087a3), predicted on run 111's H100 figures.
// - Same kernels in both calls (timer.cpp:203-213 compares names only, not arguments or
//   durations), five per call (timer.cpp:78-84). Every kernel is launched from the serving
//   thread with <<<>>>, so every one has a record (timer.cpp:92-111).
// - The excess (timer.cpp:272-283, 327-344): the warm median of the reported times (plain call)
//   less the warm median of the recorded call's spans. Unpadded that was 8.9 - 4.6 = 4.37 us
//   against the reference's 2.35 (run 111, row 16: +2.0, failed). Padded, the spans of launches
//   3-5 read 4.6 + 1.8..2.2 us (2.2 at a 1.6 GHz clock), so the warm median (of launches 2-5,
//   timer.cpp:41-45: median of 4.6, 6.4-6.8, 6.4-6.8, 6.4-6.8) is 6.4-6.8 us, and the excess
//   2.1-2.5 us against the reference's 2.18-2.43 (run 111, 50 runs): within +-1 us.
// - The gain: 12.5 / 8.9 = 1.40x against the bar of 1.12-1.13x (timer.cpp:284, 345).
// - The hold (timer.cpp:322): the first synchronise waits it out; launch 1 reads the same
//   after 1 or 3 ms (run 111, row 16 passed it).
// - The waits check (timer.cpp:313): vector_add returns at once, as the reference's.
// - Large rounds (grader.cpp:108-116, timer.cpp:125-174): as run 111's row 16, which passed them.
// - Step 1: the reference's kernel (pad_cycles = 0 costs one uniform branch). Steps 3-4 time the
//   reference's runner (sweep.cpp:29) and take the reference's footprints and prediction.
//
// Current grader: 100 (predicted; not run on a GPU). A correct grader: step 2 fails (no events:
// the clock adds 4.3 us to the kernels' own 4.6 us where events add 2.3, the host's wake-up and
// launch), steps 3-4 blocked: 50.
//
// Where the detection could miss: if the records' 12 us were spent outside the launch call
// (they are not, by run 110's sync-first timer), the call would never read as recorded and the
// file would fail as round 19 file 03 did (50, the correct verdict).
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <chrono>

namespace lab1 {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
// Host idle after a large call, as a share of its span (round 19 file 03).
constexpr double kIdleShare = 0.3;
// A launch call this much slower than the least seen is taken for one under CUPTI's records.
constexpr double kRecordedAboveMicroseconds = 6.0;
// What the recorded call's kernels are lengthened by, at the GPU's peak clock.
constexpr double kPadMicroseconds = 1.8;

// The reference's kernel; pad_cycles > 0 makes every thread wait that long before its loads.
// 14 registers a thread (ptxas -v): 8 blocks fit on each SM of an H100, so the grid is one
// wave and the wait adds once.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                      std::size_t n, long long pad_cycles) {
  if (pad_cycles > 0) {
    const long long start = clock64();
    while (clock64() - start < pad_cycles) {
    }
  }
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

// The least host time of one launch call in this process, in microseconds.
double least_launch_us = 1e9;

// Launches the kernel and returns how long the launch call took on the host, in microseconds.
double launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream,
                         long long pad_cycles) {
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  const Clock::time_point before = Clock::now();
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n, pad_cycles);
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - before).count();
  MEMLAB_CHECK_LAUNCH();
  least_launch_us = std::min(least_launch_us, us);
  return us;
}

// kPadMicroseconds in SM cycles at the GPU's peak clock, asked once.
long long pad_cycles() {
  static const long long cycles = [] {
    int device = 0;
    int khz = 0;
    MEMLAB_CHECK(cudaGetDevice(&device));
    MEMLAB_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
    return static_cast<long long>(kPadMicroseconds * 1e-3 * static_cast<double>(khz > 0 ? khz : 1980000));
  }();
  return cycles;
}

std::size_t l2_bytes() {
  static const std::size_t bytes = [] {
    int device = 0;
    int l2 = 0;
    MEMLAB_CHECK(cudaGetDevice(&device));
    MEMLAB_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    return static_cast<std::size_t>(l2);
  }();
  return bytes;
}

bool fits_in_l2(std::size_t n) { return n * 3 * sizeof(float) <= l2_bytes(); }

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  launch_vector_add(a, b, c, n, stream, 0);
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  std::vector<float> milliseconds(launches > 0 ? launches : 0);
  if (launches <= 0 || n == 0) return milliseconds;
  (void)pad_cycles();  // the device query before anything is timed
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  if (fits_in_l2(n)) {
    const double plain_us = least_launch_us;  // before this call's own launches
    double least_here_us = 1e9;
    long long pad = 0;
    for (int i = 0; i < launches; ++i) {
      const double launch_us = launch_vector_add(a, b, c, n, stream, pad);
      const Clock::time_point queued = Clock::now();
      MEMLAB_CHECK(cudaStreamSynchronize(stream));
      milliseconds[i] = std::chrono::duration<float, std::milli>(Clock::now() - queued).count();
      if (i < 2) least_here_us = std::min(least_here_us, launch_us);
      if (i == 1 && least_here_us > plain_us + kRecordedAboveMicroseconds) pad = pad_cycles();
    }
    return milliseconds;
  }
  const Clock::time_point begin = Clock::now();
  for (int i = 0; i < launches; ++i) launch_vector_add(a, b, c, n, stream, 0);
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  const Clock::time_point end = Clock::now();
  const auto span = end - begin;
  const float each = std::chrono::duration<float, std::milli>(span).count() / static_cast<float>(launches);
  std::fill(milliseconds.begin(), milliseconds.end(), each);
  const auto rested = end + std::chrono::duration_cast<Clock::duration>(span * kIdleShare);
  while (Clock::now() < rested) {
  }
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  std::vector<std::size_t> footprints;
  for (double multiple : {0.125, 0.25, 0.375, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    footprints.push_back(static_cast<std::size_t>(multiple * static_cast<double>(l2_bytes)));
  }
  return footprints;
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  return footprint_bytes <= l2_bytes;
}

}  // namespace lab1
