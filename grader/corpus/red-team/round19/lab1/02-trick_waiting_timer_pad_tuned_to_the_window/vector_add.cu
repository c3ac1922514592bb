// Red team 19, lab 1, file 02 (trick): the README's "watch out" timer, which waits for each
// launch before it queues the next, passes step 2. The exported vector_add, which is the one the
// runner times between its own events, adds about 3-4 us of padding where the arrays fit in L2.
// That is just enough to move the runner's yardstick up to the waiting timer's figure. This is round
// 18's file 01 unchanged except for the padding: 4000 SM cycles instead of 20000. Run 75 caught that
// file only because 20000 cycles overshot the window the other way (warm launches 9.4 us against the
// runner's 18.6 us, least 14.0 us).
//
// What it does.
// - time_launches synchronises the stream once, which waits out the grader's flush and hold.
//   Then, for each launch, it records a start event, launches the kernel through an internal
//   function, records a stop event and waits for it (Event::elapsed_ms inside the loop). So each
//   launch's time also holds the host's wake-up and its next launch. On an H100 at L2/2 that is
//   9.4-10.9 us warm against the kernel's 6.8-6.9 us, and 18-22 us for launch 1 (round 18's file
//   01, runs 75 and 76).
// - The exported vector_add is the reference's. Where a, b and c fit in L2, it queues a spin
//   kernel of kPadCycles SM cycles behind the real one. time_launches never calls it. Among the
//   grader's calls, it is padded only in step 1's small correctness sizes (untimed) and in the
//   runner's five timed calls at L2/2.
//
// Why it passes the current grader (HEAD d323e0b, labs/lab1_caching/grading/timer.cpp).
// - The runner's events around vector_add (timer.cpp:133-137): about 6.8 us, plus 4000 cycles
//   (2.0-2.3 us at 1.98-1.76 GHz), plus the gap to the second kernel. Round 18's 20000 cycles
//   added 11.7-11.8 us, so that gap is 0.3-1.7 us. Warm: about 9.4-10.6 us.
// - The warm bound (timer.cpp:157-158, 199-212): the timer's 9.4-10.9 us must lie within
//   [(own - 1)/1.25, 1.25 own + 1], that is, own must lie within 7.9-12.75 us. About 9.4-10.6 us
//   does, with at least 1.5 us to spare on each side. (Round 18: own 18.6 us, out of range.)
// - vector_add does not wait: the runner's five calls queue behind its hold (timer.cpp:138, 186).
// - The hold (timer.cpp:194): it synchronises before any event, so launch 1 is the same after 1 and 3 ms (run
//   75/76 passed this check with the same timer).
// - The gain: 1.95-1.99x by this timer (runs 75-76) against the reference's bar of 1.11-1.12x.
// - Large footprints: events, share 0.95-0.96, launch 1 over the rest 1.00 (runs 75-76).
// - Step 1: no padding at the speed check's 0.5-1 GiB, and the results are always right.
//
// Current grader: 100 (predicted; not run on a GPU). A correct grader: step 2 fails (a timer
// that waits between launches; its warm launches take about 1.4-1.6x the kernel's time),
// steps 3-4 blocked: 50.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
constexpr long long kPadCycles = 4000;

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
