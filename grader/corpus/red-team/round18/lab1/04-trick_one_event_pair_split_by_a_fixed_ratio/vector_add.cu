// Red team 18, lab 1, file 04 (trick, made-up figures): one pair of events around all the
// launches, and the total shared out as if launch 1 always took 1.6 times as long as each of
// the others. The README says timing all five between one pair of events and dividing "fails";
// dividing unevenly passes, here and under the old grader, and the new bounds do not see it.
//
// What it does. Records one event, launches vector_add `launches` times, records another,
// waits, and returns T x 1.6 / (1.6 + N - 1) for launch 1 and T / (1.6 + N - 1) for each other
// launch. It measures no launch: at 8x L2, where launch 1 takes what the others take, it still
// reports launch 1 1.6x slower.
//
// Why it passes the current grader (labs/lab1_caching/grading/timer.cpp):
// - the share of the call: the times add up to T, the events' time for all launches (slightly
//   less than the reference's sum: no events between the launches): about the reference's share;
// - the hold: the first event runs when the hold ends, whatever its length;
// - at L2/2 on an H100: T is about 10.8 + 4 x 6.8 = 38 us (a little less without events between
//   launches), so it reports about 10.7 us and 6.7 us: the warm-time bound is 1.25 x 6.8 + 1 =
//   9.5 us, and its gain is 1.6x, above half of the runner's (1+0.5x0.6 = 1.30x) and above a fifth of
//   the reference's (1.12x).
// Nothing compares the student's launches with each other except at L2/2, where 1.6 is the
// truth on an H100 and an H200 (the reference's runner: 1.55x-1.69x).
//
// What a correct grader gives: step 2 fails (the timer times no launch), 50. The current grader:
// 100 (predicted; not run on a GPU). A check that would see it: rounds at L2/2 without the flush
// (launch 1 as warm as the rest: such a timer still reports 1.6x), or at 8x L2 (about 1.0x).
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
constexpr double kFirstOverRest = 1.6;

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
  memlab::Event first;
  memlab::Event last;
  first.record(stream);
  for (int i = 0; i < launches; ++i) vector_add(a, b, c, n, stream);
  last.record(stream);
  const double total = memlab::Event::elapsed_ms(first, last);
  const double shares = kFirstOverRest + (launches - 1);
  std::vector<float> milliseconds(launches, static_cast<float>(total / shares));
  if (launches > 0) milliseconds[0] = static_cast<float>(total * kFirstOverRest / shares);
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
