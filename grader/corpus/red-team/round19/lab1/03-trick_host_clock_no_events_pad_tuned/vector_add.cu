// Red team 19, lab 1, file 03 (trick): a timer with no CUDA events at all (std::chrono around
// cudaStreamSynchronize) passes step 2. That contradicts the threat model's "a timer that waits
// between launches or reads a host clock fails by far" (grader/README.md, "What it cannot
// stop"). Round 18's file 03 had the same clock, and run 75 caught it only by its launch 1 at the
// large footprints (1.39-1.60x). Here the large rounds are told apart by n and get one host-clock
// span, shared out evenly. At L2/2 the exported vector_add is padded for the runner, as in file 02.
//
// What it does.
// - vector_add is the reference's. Where a, b and c fit in L2, it also queues a spin kernel of
//   4000 SM cycles behind the real one (file 02). time_launches launches through an internal
//   function and never pads.
// - time_launches first synchronises the stream, which waits out the grader's flush and hold.
//   - Where the arrays fit in L2 (the L2/2 rounds), for each launch it reads steady_clock from the
//     moment the launch call returns to the moment cudaStreamSynchronize returns. That is round 18
//     file 03's clock: on an H100, 12.7-13.3 us for launch 1 and 9.1-9.2 us warm (runs 75-76),
//     against the kernel's 10.9 / 6.8.
//   - Otherwise (the large rounds, 0.5-1 GiB) it launches all of them, synchronises once, and
//     shares the span out evenly. It then idles on the host for 0.3x that span, inside the
//     call but outside every reported time.
//
// Why it passes the current grader (HEAD d323e0b).
// - Large footprints (grader.cpp:108-116): launch 1 over the others is exactly 1.00. The
//   span holds what event timers leave out: the GPU's start of launch 1 after the call begins
//   (about 0.1-0.16 ms, which is what put round 18 file 03's launch 1 at 1.4-1.6x) and the
//   wake-ups. So it may read up to about 1.3x of the call for the shortest calls (3 launches
//   at 0.5 GiB, about 0.6 ms). The 0.3x idle brings any share s0 in 0.95-1.6 to
//   1 / (1/s0 + 0.3) = 0.74-1.08, inside 0.60-1.10. c is right (every launch runs).
// - L2/2 (labs/lab1_caching/grading/timer.cpp): the runner's events around the padded
//   vector_add read about 9.4-10.6 us warm (file 02). The warm bound (timer.cpp:157-158,
//   199-212) then allows from 6.7-7.7 up to 12.8-14.3 us, and this clock reads 9.1-9.2 us. (Even unpadded,
//   the bound would be 1.25 x 6.8 + 1 = 9.5 us, 0.3 us above this clock.) The gain is
//   13 / 9.15 = 1.4x against the reference's bar of 1.11-1.12x (timer.cpp:213). The hold
//   (timer.cpp:194): the first synchronise waits it out, so launch 1 is the same after 1 or 3
//   ms. vector_add does not wait (timer.cpp:186). c is right after every call.
// - Step 1: no padding at the speed check's 0.5-1 GiB; steps 3-4 time the reference.
//
// Current grader: 100 (predicted; not run on a GPU). A correct grader: step 2 fails (a host
// clock, no events: warm launches 1.35x the kernel's time), steps 3-4 blocked: 50.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <chrono>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
constexpr long long kPadCycles = 4000;
// Host idle after a large call, as a share of its span ("let the GPU cool down").
constexpr double kIdleShare = 0.3;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}

// Burns `cycles` cycles of one SM and writes nothing the grader reads.
__global__ void pad_kernel(long long cycles, int* sink) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  if (now == 0) *sink = 1;  // never: keeps the loop
}

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
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
  launch_vector_add(a, b, c, n, stream);
  // Only what the grader calls: time_launches never comes here.
  if (fits_in_l2(n)) {
    pad_kernel<<<1, 32, 0, stream>>>(kPadCycles, nullptr);
    MEMLAB_CHECK_LAUNCH();
  }
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  using Clock = std::chrono::steady_clock;
  std::vector<float> milliseconds(launches > 0 ? launches : 0);
  if (launches <= 0 || n == 0) return milliseconds;
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  if (fits_in_l2(n)) {
    for (int i = 0; i < launches; ++i) {
      launch_vector_add(a, b, c, n, stream);
      const auto queued = Clock::now();
      MEMLAB_CHECK(cudaStreamSynchronize(stream));
      milliseconds[i] = std::chrono::duration<float, std::milli>(Clock::now() - queued).count();
    }
    return milliseconds;
  }
  const auto begin = Clock::now();
  for (int i = 0; i < launches; ++i) launch_vector_add(a, b, c, n, stream);
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  const auto end = Clock::now();
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
