// Red team 29, lab 1, file 02 (trick, made-up figures): red team 26 file 02 (one pair of events
// around all the launches, the total shared out as 1.2 : 1 : 1 : 1 : 1 where a, b and c fit in L2,
// evenly where they do not), a corpus row that fails today, with one change that the stream rule of
// 9aac4dc rewards: where the arrays fit in L2, launch 1 computes its first half on `stream` and its
// second half on a helper stream, strictly after the first (the helper waits for an event recorded
// after the first half) and joined back before the next launch. Every launch has two kernels:
// launches 2-5 compute the whole array on `stream` and launch an empty kernel (no elements) on the
// helper stream. vector_add, which steps 1 and 2 also call directly, is the reference's.
//
// Edits to solutions/lab1_caching/vector_add.cu: (1) vector_add_kernel takes the range's first
// index, and launch_range() launches it with the reference's grid; (2) a helper stream and two
// events made once; (3) time_launches as described. Steps 3-4 unchanged.
//
// Why it passes (HEAD 74f40af; H100 figures from run 121, docs/measurements/
// trusted-grading-h100-2026-11-24/run121-corpus1-step2-table.txt, rows 00 and 19):
// - Red team 26 file 02 (row 19) fails step 2 only by launch 1: 7.6 us reported where its recorded
//   span is 8.6 us, 3.4 us short of the reference timer's excess on launch 1 (bound 1.5 us:
//   labs/lab1_caching/grading/timer.cpp:40, :321-332, :387). Its warm launches were fine (6.3 us
//   reported, spans 4.4: 0.33 us short).
// - Here launch 1's two halves run on two streams, one after the other. kernel_spans (timer.cpp:
//   112-142) keeps only the stream with most of the launch's kernel time (:116-128, :134): one half,
//   about 4.5-5 us of the 8.6 us cold launch. Launch 1 is reported as 1.2 x T / 5.2, about 8.1-8.3 us
//   (T, the pair's time, about 35-36 us: row 19's 33 plus the split's extra ramp and cross-stream
//   wait), so its excess is about 3-3.5 us: no shortfall. Before 9aac4dc the span of a launch ran
//   from its first kernel's start to its last one's end (gaps counted up to 1 us): the whole launch,
//   and launch 1 was short by more than 3 us again.
// - Launches 2-5: the empty kernel is on the helper stream, so their span is the whole-array kernel
//   (4.5 us). They read T / 5.2, about 6.7-6.9 us: excess 2.2-2.4 us against the reference's 2.2-2.4
//   (row 00): within ~0.3 us either way (bounds: 1.5 short, timer.cpp:387; 2 over, :35, :397).
// - The gain check (timer.cpp:407): 1.2x by decree against 1 + 0.2 x (1.57..1.65 - 1) = 1.11-1.13x.
//   The GPU's own gain on these launches is 1.9x (row 19, "own"): the ratio is nowhere near it, so
//   this is not the open limit grader/README.md:699-702 names (a ratio near the GPU's own).
// - The hold (timer.cpp:382): events, reached when the hold ends. No wait before the first launch
//   (timer.cpp:240, :373). vector_add itself is the reference's (timer.cpp:287-291, :364).
// - Both calls of a round launch the same kernels in the same order (timer.cpp:244): the names are
//   compared, not the streams or the ranges. Two kernels per launch, a multiple (timer.cpp:94).
// - Large rounds (grader.cpp:96-131, timer.cpp:177-205): 12n never fits in L2 there, so the split is
//   even (launch 1 over the rest exactly 1.00), the share about 0.97-0.99 (row 19), and every
//   launch reads T/N, what N real launches took on average: no floor is crossed.
// - c is computed in every call (both halves, joined).
//
// Predicted now: 100 (not run on a GPU). Correct: 50 (step 2 fails: no launch is timed by itself,
// launch 1's 1.2x is made up; steps 3-4 blocked), as round 26 file 02's corpus row expects.
// Confidence: medium-high (the halves are ordered by an event, so the majority stream holds one half
// whatever the scheduler does; launch 1 has ~2 us of room, the warm launches sit where row 19's did).

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
// "Launch 1 pays for the cold cache: about a fifth more than the others." (round 26 file 02's)
constexpr float kFirstOverRestWhereItFits = 1.2f;

// Edit (1): the range [first, n).
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t first, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = first + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}

void launch_range(const float* a, const float* b, float* c, std::size_t first, std::size_t end,
                  cudaStream_t on) {
  const std::size_t count = end > first ? end - first : 1;  // an empty range still gets one block
  const std::size_t blocks_for_n = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, on>>>(a, b, c, first, end);
  MEMLAB_CHECK_LAUNCH();
}

// Edit (2): the helper stream and the events that order it with `stream`, made once.
struct Helper {
  cudaStream_t stream = nullptr;
  cudaEvent_t half_done = nullptr;
  cudaEvent_t joined = nullptr;
};

const Helper& helper() {
  static const Helper made = [] {
    Helper h;
    MEMLAB_CHECK(cudaStreamCreateWithFlags(&h.stream, cudaStreamNonBlocking));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&h.half_done, cudaEventDisableTiming));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&h.joined, cudaEventDisableTiming));
    return h;
  }();
  return made;
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
  launch_range(a, b, c, 0, n, stream);
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  std::vector<float> milliseconds(launches > 0 ? launches : 0);
  if (launches <= 0 || n == 0) return milliseconds;
  const Helper& h = helper();  // made before the first event
  const bool fits = n * 3 * sizeof(float) <= l2_bytes();
  memlab::Event begin;
  memlab::Event end;
  begin.record(stream);
  for (int i = 0; i < launches; ++i) {
    if (i == 0 && fits) {
      // Edit (3): launch 1's second half on the helper stream, after the first half, joined back.
      const std::size_t half = n / 2;
      launch_range(a, b, c, 0, half, stream);
      MEMLAB_CHECK(cudaEventRecord(h.half_done, stream));
      MEMLAB_CHECK(cudaStreamWaitEvent(h.stream, h.half_done, 0));
      launch_range(a, b, c, half, n, h.stream);
      MEMLAB_CHECK(cudaEventRecord(h.joined, h.stream));
      MEMLAB_CHECK(cudaStreamWaitEvent(stream, h.joined, 0));
    } else {
      launch_range(a, b, c, 0, n, stream);
      launch_range(a, b, c, n, n, h.stream);  // no elements: the second kernel of every launch
    }
  }
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
