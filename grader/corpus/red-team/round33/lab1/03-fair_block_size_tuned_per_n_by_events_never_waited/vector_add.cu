// Red team 33, lab 1, file 03 (fair: a correct vector_add whose launch shape is not a function of
// n alone). The reference, except that vector_add tunes its block size for each n it sees, online
// and without ever waiting: its first three calls at an n launch the kernel with 256, 512 and 128
// threads per block (always 2048 threads per SM: 8, 4 or 16 blocks per SM), each between two events
// of its own; every later call at that n reads, with cudaEventQuery (never a wait), the times of
// those that have finished, and launches with the fastest so far (256 until one has finished). The
// kernel, its name and its grid-stride loop are the reference's, so every call computes c exactly;
// time_launches is the reference's, word for word. Nothing waits, nothing is launched but
// vector_add_kernel, all on `stream`.
//
// Edits to solutions/lab1_caching/vector_add.cu: (1) kTried, the block sizes tried at each n, and
// Tuning (per n: how many were tried, their events, the fastest); (2) vector_add launches with the
// block size its Tuning gives, between events while trying. time_launches, choose_footprints and
// predict_faster_when_warm are unchanged.
//
// Why it fails today (HEAD e2d041e, labs/lab1_caching/grading/timer.cpp): step 2's first check,
// the large rounds (measure_call_shares, :273-303), draws a new n each round (:280), makes ONE call
// of vector_add at it (kernels_of_vector_add, :118-121, :283: the first call at this n, 256 threads,
// grid min(blocks, 8 x SMs)) and then asks that every launch of time_launches run exactly that list
// with the same grid and block (timer_launches :128-156; same_launch :99-101, new in session 20).
// time_launches' launch 1 is the second call at this n: 512 threads, 4 x SMs blocks. Step 2 fails at
// once with "launch 1 of time_launches ran vector_add_kernel<<<(528, 1, 1), (512, 1, 1)>>>, where a
// call of your vector_add at the same n runs vector_add_kernel<<<(1056, 1, 1), (256, 1, 1)>>>: it must
// call vector_add once per launch, on the arrays and the n it is given, and launch nothing else"
// (H100, 132 SMs), which it does. At L2/2 the same happens by rank (direct call i against launch i,
// :221-240 and :330). Before session 20 only the kernels' names were compared, and this file
// passed (one name, every call).
// - Step 1 keeps its 50: every call is correct; the speed comparison's warm-ups take the three tries;
//   all three shapes keep 2048 threads per SM, within a few percent of one another.
// - "vector_add returns before the GPU runs it" (:487): two event records and a launch at most, a
//   few microseconds; cudaEventQuery does not wait (red team 27's file 06 used cudaStreamQuery the
//   same way and got 100).
// lab1.cuh asks vector_add for c = a + b on `stream`, without waiting; it says nothing of launching
// the same grid at every call. The guide (labs/lab1_caching/README.md:159-166) says "launch i must
// run the same kernels, with the same grid and block, as the grader's call i of vector_add": this
// vector_add cannot be made to, since what call i launches depends on the calls before it.
//
// Predicted now: 50 (step2.timer 0, steps 3-4 blocked). Correct: 100 (a correct vector_add, the
// reference's timer). Confidence: high on the prediction (the first large round fails
// deterministically); medium on "correct" (the grader may choose to require a launch shape that
// depends on n alone, but then lab1.cuh should say so).

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <limits>
#include <map>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
// Resident blocks per SM we aim for: 8 x 256 threads fill an SM on most GPUs,
// and the more loads are in flight, the better DRAM latency is hidden.
constexpr int kBlocksPerSm = 8;
// Edit (1): the block sizes tried at each n, in this order (the first is the default); each keeps
// kBlocksPerSm x kThreadsPerBlock threads per SM.
constexpr int kTried = 3;
constexpr int kBlockSizes[kTried] = {kThreadsPerBlock, 2 * kThreadsPerBlock, kThreadsPerBlock / 2};

// What vector_add has learnt at one n: the tries launched so far, their events, the fastest.
struct Tuning {
  int launched = 0;
  bool read[kTried] = {};
  memlab::Event start[kTried];
  memlab::Event stop[kTried];
  int best = 0;
  float best_ms = std::numeric_limits<float>::infinity();

  // Reads the tries that have finished (cudaEventQuery: never a wait).
  void learn() {
    for (int k = 0; k < launched; ++k) {
      if (read[k] || !stop[k].done()) continue;
      float ms = 0.0f;
      MEMLAB_CHECK(cudaEventElapsedTime(&ms, start[k].get(), stop[k].get()));
      read[k] = true;
      if (ms < best_ms) {
        best_ms = ms;
        best = k;
      }
    }
  }
};

Tuning& tuning_for(std::size_t n) {
  static auto* const tunings = new std::map<std::size_t, Tuning>;  // kept to the process's end
  return (*tunings)[n];
}

// Memory pattern: in each pass, thread t of the grid reads a[i] and b[i] and
// writes c[i] for i = pass * (grid size) + t. Consecutive threads of a warp
// touch consecutive floats, so each warp-wide load is 128 contiguous bytes
// (four 32-byte sectors, every byte used). Each element is read and written
// exactly once: 12 bytes of DRAM traffic per element when nothing is cached.
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
  // Edit (2): the block size this n's tuning gives: the next one to try, else the fastest so far.
  Tuning& tuning = tuning_for(n);
  tuning.learn();
  const bool trying = tuning.launched < kTried;
  const int choice = trying ? tuning.launched : tuning.best;
  const int threads = kBlockSizes[choice];
  const int blocks_per_sm = kBlocksPerSm * kThreadsPerBlock / threads;
  // The grid-stride loop makes any grid correct for any n; the grid size only
  // sets speed. Enough blocks to fill every SM, but never more than there are
  // elements for.
  const std::size_t blocks_for_n = (n + threads - 1) / threads;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, static_cast<std::size_t>(blocks_per_sm) * memlab::multiprocessor_count()));
  if (trying) tuning.start[choice].record(stream);
  vector_add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
  if (trying) {
    tuning.stop[choice].record(stream);
    ++tuning.launched;
  }
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  // Record every event before waiting on any, so the launches run back to back
  // exactly as they would untimed; each launch sits between its own two events.
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
