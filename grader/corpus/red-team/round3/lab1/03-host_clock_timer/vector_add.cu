// Lab 1 red-team round 3, submission 03: a host-clock timer (against 7a79211).
//
// Not an attack: the most common wrong answer to step 2. The reference
// solution, except that time_launches times each launch with the host's clock
// and a cudaStreamSynchronize, instead of CUDA events:
//
//     t0 = now(); vector_add(...); cudaStreamSynchronize(stream); t1 = now();
//
// The lab asks for events (lab1.cuh: "measured with CUDA events (a pair around
// each launch)"; README step 2: "A host clock around a launch measures how long
// it took to enqueue it"). With the synchronize, the host clock measures the
// launch, the wait and the wake-up, and at L2/2 it is wrong by far: launch 1
// includes what the stream was holding when the call began (the grader's L2
// flush and its 1 ms hold, grader.cpp:417 and remote.cu serve()), about 1 ms
// for a kernel of ~15 us. Yet both of step 2's checks pass:
//   - at large footprints, the host times add up to ~100% of the grader's
//     clock for the call (limits 60-110%, grader.cpp:51-52, 402);
//   - at L2/2, launch 1 (~1 ms) over launches 2-5 (~15-25 us) is a "warm
//     speed-up" of 40x or more, far above the least required (about 1.13x,
//     grader.cpp:452-453); nothing bounds it from above or compares a
//     launch's time with the reference runner's.
//
// A correct grader: step2.timer fails, steps 3 and 4 are blocked: 50.
// Predicted for 7a79211: 100 (at dd5672b's limits, 87-103%, also 100 in the
// runs where the reference itself passed).
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
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  // "Time each launch": start the clock, launch, wait for it, stop the clock.
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) {
    const auto start = std::chrono::steady_clock::now();
    vector_add(a, b, c, n, stream);
    MEMLAB_CHECK(cudaStreamSynchronize(stream));
    const auto stop = std::chrono::steady_clock::now();
    milliseconds[i] = std::chrono::duration<float, std::milli>(stop - start).count();
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
