// Red team 18, lab 1, file 01 (trick): the README's "watch out" timer, which waits for each
// launch before starting the next, passes step 2 because the exported vector_add (the one the
// grader's runner times between its own events) is slower than the launch that time_launches
// times.
//
// What it does.
// - time_launches synchronises the stream once, then for each launch records a start event,
//   launches the kernel, records a stop event and waits for it (cudaEventSynchronize inside the
//   loop). Each launch's start event reaches an idle GPU before the kernel is even queued, so
//   each launch's time holds the host's launch time as well as the kernel's: on an H100 at L2/2,
//   about 10.4 us against 6.8 us for the warm launches (lab1.mutant_waits_after_every_launch,
//   run 72), and about 14.4 us against 10.8 us for launch 1.
// - time_launches launches the kernel through launch_vector_add(). The exported vector_add
//   (the table's, called by the grader) does that too, then, where a, b and c fit in L2,
//   queues a spin kernel of 20000 SM cycles (about 10-12 us) behind the real one.
//
// Why it passes the current grader (labs/lab1_caching/grading/timer.cpp).
// - The share of the call (large footprints): events, the same share as the reference's.
// - The hold: it synchronises first, so a longer hold changes nothing in launch 1.
// - The warm-time bound: the runner's events around the exported vector_add see about
//   6.8 + 11 = 18 us warm, so the bound is 1.25 x 18 + 1 = 23.5 us; this timer reports about
//   10.4 us. Without the spin kernel the bound would be 9.5 us, and it would fail.
// - The gain bars: the runner sees about (10.8 + 11) / (6.8 + 11) = 1.22x, so half of its gain
//   is about 1.11x; a fifth of the reference's is about 1.12x. This timer shows about
//   14.4 / 10.4 = 1.38x, because the synchronisation before launch 1 puts the host's launch
//   time into launch 1 too. (The mutant without that first synchronisation shows 1.03x-1.14x
//   and fails the reference's bar.)
// - Step 1: the padding is added only where the footprint fits in L2; the speed check at
//   8x L2 never sees it, and the results are always right.
//
// What a correct grader gives: step 2 fails (its warm launches take about 1.5x the kernel's
// time), steps 3 and 4 are blocked: 50. The current grader: 100 (predicted; not run on a GPU).
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
constexpr long long kPadCycles = 20000;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}

// Burns kPadCycles cycles of one SM and writes nothing the grader reads.
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

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  launch_vector_add(a, b, c, n, stream);
  // Only what the grader calls: time_launches never comes here.
  if (n * 3 * sizeof(float) <= l2_bytes()) {
    pad_kernel<<<1, 32, 0, stream>>>(kPadCycles, nullptr);
    MEMLAB_CHECK_LAUNCH();
  }
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    if (n > 0) launch_vector_add(a, b, c, n, stream);
    stop[i].record(stream);
    milliseconds[i] = memlab::Event::elapsed_ms(start[i], stop[i]);  // waits: the README's mistake
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
