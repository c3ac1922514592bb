// Red team 26, lab 1, file 02 (trick, made-up figures): one pair of events around all the launches,
// the total shared out as if launch 1 took 1.2 times each of the others where a, b and c fit in L2,
// and evenly where they do not. It times no launch by itself, and its launch 1 is made up. This
// is round 18 file 04 with its ratio cut from 1.6 to 1.2 and kept away from the large rounds.
//
// What it does. Records one event, launches vector_add `launches` times (the reference's
// vector_add, one kernel each), records another, waits, and returns r x T / (r + N - 1) for launch
// 1 and T / (r + N - 1) for each other launch, where T is the two events' elapsed time, N the
// launches, and r = 1.2 if 12n bytes fit in L2, else 1.
//
// Why it passes the current grader (HEAD 45087a3), predicted on run 111's H100 figures.
// - Run 111, row 09 (round 18 file 04, r = 1.6, the same T): launch 1 9.4 us, warm 5.9 us, the
//   records' warm spans 4.5-4.6 us, its excess 1.32 us against the reference's 2.27. It failed
//   only by its launch 1 at the large footprints (1.60x, grader.cpp:112). So T = 5.9 x 5.6 =
//   33.0 us at L2/2: one pair has no events between the launches, so the five kernels and the
//   four gaps between them come to about what five event pairs less the events' cost do.
// - The excess (labs/lab1_caching/grading/timer.cpp:272-283, 327-344) is judged on launches 2-5
//   only (warm_ms, timer.cpp:41-45). With r = 1.2 they read 33.0 / 5.2 = 6.35 us; less the
//   spans' 4.55 that is 1.8 us, against the reference's 2.18-2.43 (run 111, 50 runs): -0.4 to
//   -0.65 us, inside the +-1 us. (r = 1.6 was already inside, at -0.95.) A change of 1 us in T
//   moves it by 0.2 us.
// - Launch 1 is compared with nothing the grader measured: its recorded span (their_kernels[0],
//   8.7 us) is read only for the advice in a failure message (timer.cpp:270, 347). The gain
//   check (timer.cpp:345) sees 1.20x, a fixed ratio, against a bar of 1 + 0.2 x (1.59..1.64 - 1)
//   = 1.12-1.13x (1.14x even at an H200's 1.69x).
// - The hold (timer.cpp:322): events; the first is reached when the hold ends, whatever its
//   length. The waits check (timer.cpp:313): the reference's vector_add.
// - Both calls launch the same five kernels (timer.cpp:78-84, 209-213): the reference's, once per
//   launch, all from the serving thread with <<<>>>, so all are recorded.
// - Large rounds (grader.cpp:108-116, timer.cpp:146-174): 12n >= 0.5 GiB never fits in L2, so
//   the split is even: launch 1 over the rest is exactly 1.00; the times add up to T, the share
//   of the call about 0.94 (run 111, row 09); every launch reads T/N, no less than a launch takes
//   (require_above_the_floor, timer.cpp:125-143), since T holds N real launches.
// - Step 1: the reference's kernel. Steps 3-4 time the reference's runner (sweep.cpp:29) and
//   take the reference's footprints and prediction.
//
// Current grader: 100 (predicted; not run on a GPU). A correct grader: step 2 fails (no launch is
// timed by itself; launch 1 is 1.2x the rest by decree, against the GPU's 1.9x), steps 3-4
// blocked: 50. The README says timing all five between one pair "fails"; it fails only when the
// share is even.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
// "Launch 1 pays for the cold cache: about a fifth more than the others."
constexpr float kFirstOverRestWhereItFits = 1.2f;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
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
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  std::vector<float> milliseconds(launches > 0 ? launches : 0);
  if (launches <= 0) return milliseconds;
  const bool fits = n * 3 * sizeof(float) <= l2_bytes();  // asked before the first event
  memlab::Event begin;
  memlab::Event end;
  begin.record(stream);
  for (int i = 0; i < launches; ++i) vector_add(a, b, c, n, stream);
  end.record(stream);
  const float total = memlab::Event::elapsed_ms(begin, end);
  const float first = fits ? kFirstOverRestWhereItFits : 1.0f;
  const float each = total / (first + static_cast<float>(launches - 1));
  std::fill(milliseconds.begin(), milliseconds.end(), each);
  milliseconds[0] = first * each;
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
