// Red team 27, lab 1, file 06 (fair, near the guide's edge): the timer first
// asks cudaStreamQuery(stream) whether earlier work is still running, only to
// count it in a static counter (a student's debugging aid). cudaStreamQuery does
// not wait: the guide's rule is against waiting for the stream before the first
// event, and this does not. Then events as std::vector<memlab::Event>, all
// recorded, one cudaStreamSynchronize at the end, and the elapsed times read
// back to front. vector_add sizes its grid with
// cudaOccupancyMaxActiveBlocksPerMultiprocessor in every call (host arithmetic
// on the kernel's attributes: microseconds), with an error-check macro of the
// student's own around every call.
//
// Expected: 100, fairly sure.
//  - step2.timer: cudaStreamQuery returns cudaErrorNotReady at once while the
//    grader's hold is queued, so the first launch comes before the hold ends
//    (runner_main.cpp:56-59; timer.cpp:358). The occupancy query is made in each
//    of the five calls queued behind the 1 ms hold (timer.cpp:271-276): a few
//    microseconds each, far inside it. Per-launch pairs of events: the reference
//    timer's excess.
//  - step1.speed: the grid is blocks_per_sm (8 for 256 threads) x SMs, the
//    reference's grid.

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <cstdio>
#include <vector>

// My own check, so that a failure names the call and the line.
#define CHECK_CUDA(call)                                                                        \
  do {                                                                                          \
    const cudaError_t status_ = (call);                                                         \
    if (status_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(status_)); \
      MEMLAB_CHECK(status_);                                                                    \
    }                                                                                           \
  } while (0)

namespace lab1 {

namespace {
constexpr int kBlockSize = 256;
int busy_streams_seen = 0;  // how often time_launches found earlier work still queued
}  // namespace

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n) {
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t step = gridDim.x * static_cast<std::size_t>(blockDim.x);
  for (; i < n; i += step) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  int blocks_per_sm = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, vector_add_kernel, kBlockSize, 0));
  const std::size_t full_gpu = static_cast<std::size_t>(blocks_per_sm) * memlab::multiprocessor_count();
  const std::size_t for_n = (n + kBlockSize - 1) / kBlockSize;
  const auto blocks = static_cast<unsigned>(for_n < full_gpu ? for_n : full_gpu);
  vector_add_kernel<<<blocks, kBlockSize, 0, stream>>>(a, b, c, n);
  CHECK_CUDA(cudaGetLastError());
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  // Not a wait: only whether the stream still has work queued.
  const cudaError_t idle = cudaStreamQuery(stream);
  if (idle == cudaErrorNotReady) {
    ++busy_streams_seen;
  } else {
    CHECK_CUDA(idle);
  }

  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    vector_add(a, b, c, n, stream);
    stop[i].record(stream);
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));

  std::vector<float> milliseconds(launches, 0.0f);
  for (int i = launches - 1; i >= 0; --i) {
    CHECK_CUDA(cudaEventElapsedTime(&milliseconds[i], start[i], stop[i]));
  }
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  std::vector<std::size_t> footprints;
  for (std::size_t eighths : {1, 2, 3, 4}) footprints.push_back(l2_bytes * eighths / 8);
  for (std::size_t times : {2, 4}) footprints.push_back(l2_bytes * times);
  return footprints;
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  return footprint_bytes <= l2_bytes / 2;
}

}  // namespace lab1
