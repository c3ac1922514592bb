// Red team 18, lab 1, file 08 (fair, uncertain): a correct event timer written unlike the
// reference's. The kernel and vector_add are the reference's.
// - Events are made for each launch, inside the loop, with cudaEventCreateWithFlags
//   (cudaEventBlockingSync for the timing pair, cudaEventDisableTiming for the fork and join),
//   recorded with cudaEventRecordWithFlags(..., cudaEventRecordDefault), and destroyed once read.
// - Each launch runs on a stream of the file's own, forked from the grader's stream and joined
//   back to it with events; the start and stop events are on the grader's stream, around the
//   fork, the launch and the join. Everything is queued before the first wait, as the README asks.
//
// Why it might fail the new warm-time bound. Between its start and stop events the GPU resolves
// two waits between streams (the side stream waits for the fork, the grader's stream for the join)
// as well as running the kernel. If those cost h microseconds together, the warm launches read
// 6.8 + h against the runner's 6.8 us around the same kernel on one stream; the bound,
// 1.25 x 6.8 + 1 = 9.5 us, fails for h > 2.7 us. The gain bars allow more: (10.8 + h)/(6.8 + h) stays
// above half of the runner's gain (1.30x) for h < 7 us. Each wait between streams is about a
// microsecond or two (not measured here: no GPU), so this may pass or fail by a little.
// The per-launch event creation, the blocking-sync flag and cudaEventRecordWithFlags change
// nothing on the GPU: if this file fails, the waits between streams are why.
//
// What a correct grader gives: 100 (each launch is timed by events on the GPU, recorded before any
// wait); if the new bound fails it, the bound is tighter than the GPU's own cost of a fork and a
// join. Predicted on the current grader: 100 if h < 2.7 us, else 50.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

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

// The file's own stream, made once (the grader's runner is one process for all calls).
cudaStream_t side_stream() {
  static const cudaStream_t stream = [] {
    cudaStream_t made = nullptr;
    MEMLAB_CHECK(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking));
    return made;
  }();
  return stream;
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
  const cudaStream_t side = side_stream();
  struct Marks {
    cudaEvent_t start, stop, forked, joined;
  };
  std::vector<Marks> marks(launches);
  for (int i = 0; i < launches; ++i) {
    Marks& m = marks[i];
    MEMLAB_CHECK(cudaEventCreateWithFlags(&m.start, cudaEventBlockingSync));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&m.stop, cudaEventBlockingSync));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&m.forked, cudaEventDisableTiming));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&m.joined, cudaEventDisableTiming));
    MEMLAB_CHECK(cudaEventRecordWithFlags(m.start, stream, cudaEventRecordDefault));
    MEMLAB_CHECK(cudaEventRecordWithFlags(m.forked, stream, cudaEventRecordDefault));
    MEMLAB_CHECK(cudaStreamWaitEvent(side, m.forked, 0));
    vector_add(a, b, c, n, side);
    MEMLAB_CHECK(cudaEventRecordWithFlags(m.joined, side, cudaEventRecordDefault));
    MEMLAB_CHECK(cudaStreamWaitEvent(stream, m.joined, 0));
    MEMLAB_CHECK(cudaEventRecordWithFlags(m.stop, stream, cudaEventRecordDefault));
  }
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventSynchronize(marks[i].stop));
    MEMLAB_CHECK(cudaEventElapsedTime(&milliseconds[i], marks[i].start, marks[i].stop));
  }
  for (Marks& m : marks) {
    for (cudaEvent_t e : {m.start, m.stop, m.forked, m.joined}) MEMLAB_CHECK(cudaEventDestroy(e));
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
