// Red team 27, lab 1, file 02 (fair): one element per thread in blocks of 1024
// threads, and a timer of chained events: launches + 1 events, one at each
// boundary, so launch i is the time from event i to event i + 1. The events are
// made with cudaEventBlockingSync (the host sleeps in the final wait instead of
// spinning), made and destroyed in every call. The final wait is
// cudaStreamSynchronize, after everything is recorded.
//
// What a student did and why: "a stop event is also the next start event, so
// why record two?" (a common idiom in benchmarking code), and blocking-sync
// events because a spinning wait burns a core.
//
// Expected: 100, fairly sure; the one margin is the per-launch shortfall.
//  - step1.speed: one element per thread measured 1.05-1.06x the reference on an
//    H200 (labs/lab1_caching/README.md step 1 table, with 256 threads; 1024 keeps
//    the same 2048 threads per SM).
//  - step2.timer: a chained timer has one event between two kernels where the
//    reference's has two, so each launch reads a little less than the reference's
//    timer: run 113 measured chained events -0.66 to -0.35 us, worst launch 0.96 us
//    short, run 114 worst 1.09 us (docs/measurements/trusted-grading-h100-2026-11-24/
//    README.md, runs 113-114), against the 1.5 us allowed (timer.cpp:39, 372). The
//    blocking-sync flag changes only how the host waits, not what the GPU stamps.
//    One element per thread gains 1.21-1.29x at L2/2 (timer.cpp:47-51), above the
//    ~1.11-1.14x needed.
//  - steps 3-4: footprints L2/8, L2/4, L2/2, 2 L2, 4 L2.

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>

#include <vector>

namespace lab1 {

namespace {
constexpr unsigned kThreadsPerBlock = 1024;
}

// Thread i adds element i: a warp reads 32 consecutive floats of a and of b.
__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;  // 2^31 + 4099 -> 2097156 blocks
  vector_add_kernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  // boundary[i] is the end of launch i - 1 and the start of launch i.
  std::vector<cudaEvent_t> boundary(launches + 1, nullptr);
  for (cudaEvent_t& event : boundary) MEMLAB_CHECK(cudaEventCreateWithFlags(&event, cudaEventBlockingSync));

  MEMLAB_CHECK(cudaEventRecord(boundary[0], stream));
  for (int i = 0; i < launches; ++i) {
    vector_add(a, b, c, n, stream);
    MEMLAB_CHECK(cudaEventRecord(boundary[i + 1], stream));
  }
  MEMLAB_CHECK(cudaStreamSynchronize(stream));  // everything above is queued; now wait once

  std::vector<float> milliseconds(launches, 0.0f);
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventElapsedTime(&milliseconds[i], boundary[i], boundary[i + 1]));
  }
  for (cudaEvent_t event : boundary) MEMLAB_CHECK(cudaEventDestroy(event));
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  return {l2_bytes / 8, l2_bytes / 4, l2_bytes / 2, 2 * l2_bytes, 4 * l2_bytes};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  // If all three arrays fit in L2, the second launch finds a and b there.
  return footprint_bytes < l2_bytes;
}

}  // namespace lab1
