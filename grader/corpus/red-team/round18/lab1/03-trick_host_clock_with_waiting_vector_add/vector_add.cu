// Red team 18, lab 1, file 03 (trick): a timer on the host's clock (std::chrono around a
// stream synchronize) passes step 2, which the grader now says no host clock can do
// (grader/README.md's threat model, corpus.py's note on round 17's file 04: "A host-clock timer
// now fails step 2 whatever its share of the call").
//
// What it does.
// - vector_add waits for its stream before it launches (file 02's vector_add). So the runner's
//   events around it (the warm-time bound's yardstick) hold the host's wake-up and launch time
//   too: about 6.8 + 4.5 = 11.3 us warm at L2/2 on an H100, 15.3 us for launch 1.
// - time_launches synchronises the stream, idles 100 us on the host ("let the GPU settle"),
//   then for each launch calls vector_add and reads steady_clock from the moment the launch is
//   queued to the moment cudaStreamSynchronize returns.
//
// Why it passes the current grader (labs/lab1_caching/grading/timer.cpp):
// - the warm-time bound: this clock reads about 6.8 + 2 to 3 us (the kernel's start after the
//   launch call returns, and the wake-up) = 9-10 us; the bound is 1.25 x 11.3 + 1 = 15.1 us. (Round
//   17's host clock, started before the launch, read 12.6-13.4 us against a bound of 9.5 us.)
// - the gain bars: launch 1 is timed the same way (after the first synchronize the stream is
//   idle), about 13.5 / 9.5 = 1.4x; the runner's gain is about 15.3 / 11.3 = 1.35x, half of it
//   1.18x; a fifth of the reference's about 1.12x;
// - the hold: the first synchronize waits the hold out, before any clock is read;
// - the share of the call at large footprints: a host clock counts more than the events (round
//   17's read 108-113% of the call, the limit is 110%). The 100 us spent before the first launch
//   is in the call and in no launch: about 95% of 1.09 x C / (C + 0.1 ms) for calls C of
//   0.25-0.9 ms, 75-99%, inside 60-110%. (This part is no news: the lower limit leaves room for
//   any timer that over-counts by up to 1.6x to idle the difference away outside its clocks.)
// - step 1: vector_add's wait costs one gap per call, about 3% at 8x L2.
//
// What a correct grader gives: step 2 fails (a host clock: its warm launches take 1.4x the
// kernel's time), steps 3 and 4 blocked: 50. The current grader: 100 (predicted; not run on a GPU).
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

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  MEMLAB_CHECK(cudaStreamSynchronize(stream));  // "make sure the stream is ready"
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  using Clock = std::chrono::steady_clock;
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  // Let the GPU settle before timing.
  const auto settle = Clock::now() + std::chrono::microseconds(100);
  while (Clock::now() < settle) {
  }
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) {
    vector_add(a, b, c, n, stream);
    const auto queued = Clock::now();
    MEMLAB_CHECK(cudaStreamSynchronize(stream));
    const auto done = Clock::now();
    milliseconds[i] = std::chrono::duration<float, std::milli>(done - queued).count();
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
