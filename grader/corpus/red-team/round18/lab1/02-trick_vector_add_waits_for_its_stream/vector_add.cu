// Red team 18, lab 1, file 02 (trick, no detection of anything): the reference's timer, word for
// word, around a vector_add that waits for its stream before it launches. That is the README's
// "watch out" mistake (wait for each launch before starting the next), moved from the timer into
// vector_add: the grader's own events around vector_add then see the same idle GPU as the
// student's, and the new bounds compare the timer with itself.
//
// What it does. vector_add calls cudaStreamSynchronize(stream), then launches. In
// time_launches (the reference's loop: start event, vector_add, stop event, all recorded before
// any wait), each start event is queued before vector_add's wait, so the GPU reaches it as soon
// as the previous launch ends; the kernel is launched only once the host has woken from the
// wait, a few microseconds later. Every launch's time holds that gap g (the waiting mutant's
// is 10.4 - 6.8 = 3.6 us on an H100; here also the wake-up: about 4-5 us).
//
// Why it passes the current grader (labs/lab1_caching/grading/timer.cpp):
// - the runner's time_sequence (common/memlab/timing.cu:102) is the same loop around the same
//   vector_add: its warm launches are 6.8 + g too, so the warm-time bound holds (ratio about 1.0);
// - launch 1 has the gap too (vector_add waits out the grader's hold, then launches), so the gain
//   is (10.8 + g) / (6.8 + g), about 1.35x: above a fifth of the reference's gain (about 1.12x)
//   and, being the runner's own gain, above half of it. It stays above 1.14x for any g < 21 us;
// - the hold: the start event runs when the hold ends, whatever its length, and the gap after it
//   does not depend on the hold;
// - the share of the call: events, about the reference's share (g is 3-4% of a launch there);
// - step 1: the wait costs one gap per call, about 3% of the 8x L2 launch (the limit is 1.25x).
// lab1.cuh says vector_add "returns without waiting for the GPU"; nothing checks it.
//
// What a correct grader gives: step 2 fails (its launches at L2/2 take 1.6-1.7x the kernel's time
// and show 1.35x where the cache gives 1.6x), or step 1 names a vector_add that waits: 50.
// The current grader: 100 (predicted; not run on a GPU). The old grader (the reference's bar
// alone) passed it too.
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

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // "Make sure the stream is ready": waits for everything queued before.
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  // The reference's timer, unchanged.
  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    vector_add(a, b, c, n, stream);
    stop[i].record(stream);
  }
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) {
    milliseconds[i] = memlab::Event::elapsed_ms(start[i], stop[i]);
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
