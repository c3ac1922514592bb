// Red team 18, lab 1, file 07 (fair): the reference, except that time_launches launches the kernel
// itself, with one thread per element (ceil(n / 256) blocks of 256), instead of calling vector_add,
// which keeps the reference's 8 blocks of 256 per SM. The kernel is the same grid-stride kernel,
// correct for any grid. The timer is correct: a start and a stop event around each launch, all
// recorded before any wait, on the stream it is given.
//
// Why the current grader fails it, and the old one did not. Step 2 now also needs half of the gain
// that the runner's events show around the student's vector_add (timer.cpp, kShareOfOwnGain), but
// that is another launch than the one time_launches times. On an H100 at L2/2 (run 73, corpus row
// 01-thread_per_element and the reference's rows):
// - one thread per element: cold 10.5 us, warm 8.7 us, gain 1.21x (what this timer reports);
// - the reference's launch (the runner around vector_add): cold 10.8 us, warm 6.8 us, 1.59x;
// - bars: a fifth of the reference's gain, 1.12x (passes, as under the old grader); half of the
//   runner's, 1 + 0.5 x 0.59 = 1.30x: 1.21x fails, by 0.08-0.13 (the runner measured 1.55x-1.69x).
//   The warm-time bound, 1.25 x 6.8 + 1 = 9.5 us against 8.7 us, passes, narrowly.
// The failure reads "Time each launch with its own pair of events, and do not wait between
// launches", which it does.
//
// What a correct grader gives: 100 (its times are the true times of the launches it made), or at
// the least a failure that says time_launches must call vector_add (lab1.cuh says it "launches
// vector_add", which this does not do by the letter). Predicted on the current grader: 50.
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
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  // One thread per element: every element read by its own thread, in one pass.
  const auto blocks = static_cast<unsigned>(std::max<std::size_t>(1, (n + kThreadsPerBlock - 1) / kThreadsPerBlock));
  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
    MEMLAB_CHECK_LAUNCH();
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
