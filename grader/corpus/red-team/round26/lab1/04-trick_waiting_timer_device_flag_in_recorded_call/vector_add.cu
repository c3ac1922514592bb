// Red team 26, lab 1, file 04 (trick): the README's own "watch out" timer (it waits for each
// launch's stop event before the next launch) passes step 2. As file 01, it tells the call with
// CUPTI's kernel records by the host's cost of its launch calls, and there lengthens its kernels
// by about 4.5 us. Unlike file 01 the kernels' arguments are the same in both calls: the length
// comes from a __device__ variable written by cudaMemcpyToSymbolAsync, a copy, which the launch
// watch does not see and the kernel records do not list. So comparing the launches' parameters
// between the two calls (the plain fix for file 01) would not close it either.
//
// What it does.
// - vector_add_kernel is the reference's grid-stride kernel (one wave: 8 blocks of 256 per SM,
//   14 registers a thread) that first reads pad_cycles, a __device__ variable, and if
//   it is not 0 spins that many SM cycles in every thread before its loads.
// - time_launches is round 18 file 01's and round 19 file 02's: it synchronises the stream, then
//   for each launch records a start event, launches, records a stop event and waits for it
//   (Event::elapsed_ms). Every launch call is timed on the host. If launches 1 and 2 each took
//   more than 6 us above the least launch call of the process (step 1, the large rounds and the
//   runner's calls set it at about 2-4 us; CUPTI's records add about 12 us, run 110 and
//   labs/lab1_caching/grading/timer.cpp:181-184), it copies 4.5 us' worth of cycles (at the
//   GPU's peak clock) into pad_cycles before launch 3, and 0 after the last launch.
// - Nothing tells the rounds apart by n: the same code runs at every size.
//
// Why it passes the current grader (HEAD 45087a3), predicted on run 111's H100 figures.
// - Unpadded, this timer read 11.5-11.8 us warm against its kernels' 4.6 us (run 111, rows 06 and
//   15), an excess of 6.94-7.26 us against the reference's 2.32-2.34: +4.6 to +4.9 us, failed.
// - Padded in the recorded call only, the spans of launches 3-5 read 4.6 + 4.5..5.6 us (5.6 at a
//   1.6 GHz clock), so the warm median of launches 2-5 (timer.cpp:41-45) reads 9.1-10.2 us and
//   the excess (timer.cpp:272-283, 327-344) 11.5..11.8 - 9.1..10.2 = 1.3-2.7 us, against the
//   reference's 2.18-2.43 (run 111, 50 runs): within +-1 us at the peak clock (+0.1 to +0.4),
//   and still within it at 1.6 GHz (-0.9 to -0.6).
// - Both calls launch the same five kernels with the same arguments (timer.cpp:78-84, 209-213);
//   every one from the serving thread with <<<>>>, so every one is recorded (timer.cpp:92-111).
//   The copies are no launches (launch_watch.cpp: kKernelLaunches, kGraphWork).
// - The gain (timer.cpp:345): 28.4 / 11.8 = 2.4x (row 06) against 1.12-1.13x. The hold
//   (timer.cpp:322): the first synchronise waits it out. The waits check (timer.cpp:313):
//   vector_add returns at once. Large rounds (grader.cpp:108-116): rows 06 and 15 passed them
//   (share 0.96-0.97, launch 1 over the rest 0.98-0.99); nothing is padded there (never
//   recorded). Step 1: pad_cycles is 0 (one load of a cached word per thread). Steps 3-4 time
//   the reference's runner.
//
// Current grader: 100 (predicted; not run on a GPU). A correct grader: step 2 fails (the README's
// waiting timer: its warm launches read the host's wake-up and launch, 2.5x the kernel's time),
// steps 3-4 blocked: 50.
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
// A launch call this much slower than the least seen is taken for one under CUPTI's records.
constexpr double kRecordedAboveMicroseconds = 6.0;
// What the recorded call's kernels are lengthened by, at the GPU's peak clock.
constexpr double kPadMicroseconds = 4.5;

__device__ long long pad_cycles;  // 0 but in a recorded call's launches 3-5

// 14 registers a thread (ptxas -v): 8 blocks fit on each SM of an H100, one wave.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                      std::size_t n) {
  const long long pad = pad_cycles;
  if (pad > 0) {
    const long long start = clock64();
    while (clock64() - start < pad) {
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
double launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  const Clock::time_point before = Clock::now();
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - before).count();
  MEMLAB_CHECK_LAUNCH();
  least_launch_us = std::min(least_launch_us, us);
  return us;
}

// kPadMicroseconds in SM cycles at the GPU's peak clock, asked once.
long long cycles_to_pad() {
  static const long long cycles = [] {
    int device = 0;
    int khz = 0;
    MEMLAB_CHECK(cudaGetDevice(&device));
    MEMLAB_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
    return static_cast<long long>(kPadMicroseconds * 1e-3 * static_cast<double>(khz > 0 ? khz : 1980000));
  }();
  return cycles;
}

// Host copies of what the device variable is set to (a copy reads them before it returns).
const long long kNoPad = 0;

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  launch_vector_add(a, b, c, n, stream);
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  const long long pad = cycles_to_pad();  // the device query before anything is timed
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  std::vector<memlab::Event> start(launches > 0 ? launches : 0);
  std::vector<memlab::Event> stop(launches > 0 ? launches : 0);
  std::vector<float> milliseconds(launches > 0 ? launches : 0);
  const double plain_us = least_launch_us;  // before this call's own launches
  double least_here_us = 1e9;
  bool padded = false;
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    const double launch_us = n > 0 ? launch_vector_add(a, b, c, n, stream) : 0.0;
    stop[i].record(stream);
    milliseconds[i] = memlab::Event::elapsed_ms(start[i], stop[i]);  // waits: the README's mistake
    if (i < 2) least_here_us = std::min(least_here_us, launch_us);
    if (i == 1 && least_here_us > plain_us + kRecordedAboveMicroseconds) {
      MEMLAB_CHECK(cudaMemcpyToSymbolAsync(pad_cycles, &pad, sizeof pad, 0, cudaMemcpyHostToDevice, stream));
      padded = true;
    }
  }
  if (padded) {
    MEMLAB_CHECK(cudaMemcpyToSymbolAsync(pad_cycles, &kNoPad, sizeof kNoPad, 0, cudaMemcpyHostToDevice, stream));
    MEMLAB_CHECK(cudaStreamSynchronize(stream));
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
