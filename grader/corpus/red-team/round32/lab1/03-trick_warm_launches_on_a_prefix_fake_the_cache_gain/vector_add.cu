// Red team 32, lab 1, file 03 (trick, a cache gain made by doing less work; the launches inside
// time_launches differ from the direct call): round 18's file 06 kernel (evict-first loads and
// stores, __ldcs/__stcs), which hides the cache (1.01x at L2/2 by its timer and by the grader's
// events, run 75) and so fails step 2 (corpus 1 expects step2.timer 0 for it). Here the timer is
// the reference's, each launch between its own two events, except that where a, b and c fit in L2
// launches 2 to N call vector_add on the first 60% of the arrays only. Launch 1 computes all of c;
// the others rewrite the same values in its first 60%.
//
// Edits to solutions/lab1_caching/vector_add.cu: (1) the kernel's loads and stores marked streaming
// (__ldcs/__stcs), as round 18's file 06; (2) fits_in_l2(); (3) time_launches passes n * 3 / 5 to
// vector_add for launches 2 to N where the arrays fit in L2.
//
// Why it passes (HEAD 6e22bdc; H100 figures from run 121/134: the reference's kernel 8.7 us cold,
// 4.5 us warm, its events 2.2-2.6 us):
// - The kernel list (labs/lab1_caching/grading/timer.cpp:93-99, :111-135) compares NAMES only: a
//   call at 0.6 n launches the same single vector_add_kernel as the direct call at n. Nothing ties a
//   launch to the n the grader asked for: no floor at L2/2 (require_above_the_floor runs only in
//   the large rounds, :204-227, :243), and the runner's own times of the exported vector_add are only
//   reported (runner_other_calls_warm_ms, :388).
// - The span (:147-190) is each launch's own kernel, so the excess is exactly the reference's
//   events (:433, :443 pass). The gain, which the evict-first kernel does not have: launch 1 about
//   8.7 + 2.3 = 11 us, launches 2-5 about 0.6 x 8.7 + 2.3 = 7.5 us (DRAM-bound, no cache), 1.46x
//   against 1 + 0.2 x (1.6 - 1) = 1.12x (:378, :458).
// - c is whole after every call (launch 1; require_computed). The timer waits once, at the end
//   (:419); launch 1 is timed by events (:428).
// - Large rounds (labs/lab1_caching/grading/grader.cpp:96-131; n > L2): every launch on all n, so
//   launch 1 over the rest ~1.0 and every launch above the DRAM floor. Step 1: the kernel streams
//   from DRAM at the reference's speed (round 18's file 06 kept step 1's 50 points, run 75).
// lab1.cuh: time_launches "launches vector_add @p launches times back to back on @p stream over the
// same arrays". The README: "Each launch must run exactly the kernels one call of your vector_add
// runs at the same size". The check behind that sentence sees names, not sizes.
//
// Predicted now: 100 (not run on a GPU). Correct: 50 (step2.timer 0: launches 2-5 do 60% of the work,
// the gain is made by the timer; the honest timer around this kernel fails, as round 18 file 06
// does). Confidence: high.

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
// Resident blocks per SM we aim for: 8 x 256 threads fill an SM on most GPUs,
// and the more loads are in flight, the better DRAM latency is hidden.
constexpr int kBlocksPerSm = 8;

// Memory pattern: in each pass, thread t of the grid reads a[i] and b[i] and
// writes c[i] for i = pass * (grid size) + t. Consecutive threads of a warp
// touch consecutive floats, so each warp-wide load is 128 contiguous bytes
// (four 32-byte sectors, every byte used). Each element is read and written
// exactly once: 12 bytes of DRAM traffic per element when nothing is cached.
// Edit (1): loads and stores marked streaming (evict-first): no line is worth keeping.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    __stcs(c + i, __ldcs(a + i) + __ldcs(b + i));
  }
}

// Edit (2): whether a, b and c of n floats fit in this GPU's L2 (asked once).
bool fits_in_l2(std::size_t n) {
  static const std::size_t l2 = [] {
    int device = 0;
    int bytes = 0;
    MEMLAB_CHECK(cudaGetDevice(&device));
    MEMLAB_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
    return static_cast<std::size_t>(bytes);
  }();
  return n * 3 * sizeof(float) <= l2;
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // The grid-stride loop makes any grid correct for any n; the grid size only
  // sets speed. Enough blocks to fill every SM, but never more than there are
  // elements for.
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  // Edit (3): where everything fits in L2, launches after the first cover 60% of the arrays.
  const std::size_t warm_n = fits_in_l2(n) ? n * 3 / 5 : n;
  // Record every event before waiting on any, so the launches run back to back
  // exactly as they would untimed; each launch sits between its own two events.
  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    vector_add(a, b, c, i == 0 ? n : warm_n, stream);
    stop[i].record(stream);
  }
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) {
    milliseconds[i] = memlab::Event::elapsed_ms(start[i], stop[i]);
  }
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  // Multiples of the L2 size: four that fit in it, one at its size, and three
  // that cannot fit. Below an eighth of L2, launch overhead (a few
  // microseconds) would hide the difference between DRAM and L2.
  std::vector<std::size_t> footprints;
  for (double multiple : {0.125, 0.25, 0.375, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    footprints.push_back(static_cast<std::size_t>(multiple * static_cast<double>(l2_bytes)));
  }
  return footprints;
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  // If a, b and c fit in L2 together, the first launch leaves them there and
  // the next launches read a and b from L2 instead of DRAM. If they do not fit,
  // each launch evicts what the next one needs first, and all launches run at
  // DRAM speed.
  return footprint_bytes <= l2_bytes;
}

}  // namespace lab1
