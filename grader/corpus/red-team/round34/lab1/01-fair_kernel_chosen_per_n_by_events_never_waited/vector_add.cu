// Red team 34, lab 1, file 01 (fair: the autotuner that session 20 let through, tuning the
// kernel instead of the block size). Red team 33's file 03 (itself the reference with a per-n
// online tuner) with one change: its tries differ in the KERNEL, not the block size. The first two
// calls at an n launch the reference's scalar grid-stride vector_add_kernel and a float4
// grid-stride vector_add_vec4_kernel (same 2048 threads per SM), each between two events of its
// own; every later call at that n reads, with cudaEventQuery (never a wait), the times of those
// that have finished and launches the faster (the scalar kernel until one has finished). Both
// kernels compute c = a + b exactly, for any n and any alignment the header promises (lab1.cuh:14-17:
// every array starts an allocation, so float4 loads from its start are aligned; the n % 4 tail is
// done by the scalar lanes of the vec4 kernel). time_launches is the reference's, word for word.
//
// Edits to round 33's file 03 (and through it to solutions/lab1_caching/vector_add.cu):
// (1) kTried = 2 and the tries are kernels, not block sizes; (2) vector_add_vec4_kernel; (3) vector_add
// launches the kernel its Tuning gives.
//
// Why it fails today (HEAD a8e38d7, labs/lab1_caching/grading/timer.cpp). Session 20 made
// same_launch compare kernel NAMES only (:97-100), "a vector_add may tune its launch from call to
// call (red team 33's file 03 chose its block size per n by events)", and run 141 passed that file.
// But the identity check is still there, by name: the large rounds (measure_call_shares :275-305)
// draw a new n per round (:282), make ONE call of vector_add at it (kernels_of_vector_add :117-120, :285:
// the first call at this n, try 0, vector_add_kernel) and require every launch of time_launches to
// run exactly that list (timer_launches :126-158). Launch 1 of time_launches is the second call at
// this n, try 1, vector_add_vec4_kernel: "launch 1 of time_launches ran vector_add_vec4_kernel<<<...>>>,
// where a call of your vector_add at the same n runs vector_add_kernel<<<...>>>: it must call
// vector_add once per launch ... and launch nothing else" (:149-151), which it does. At L2/2 the
// same happens by rank (direct call i against launch i, :332). Step 1 keeps its 50 (every call
// correct; the speed check's warm-ups take the two tries; both kernels stream at DRAM speed).
// The grader's own reasoning for block sizes holds word for word for a choice of kernels; lab1.cuh
// asks vector_add for c = a + b on `stream` without waiting, nothing about launching the same
// kernel at every call.
//
// Predicted now: 50 (step2.timer 0, steps 3-4 blocked). Correct: 100 (a correct vector_add and the
// reference's timer). Confidence: high (prediction: the first large round fails
// deterministically); medium (verdict: the course may prefer to forbid per-call choices of kernel,
// but then lab1.cuh should say so, and session 20 allowed per-call choices of grid and block).

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
// Edit (1): the kernels tried at each n, in this order (the first is the default): 0 the scalar
// vector_add_kernel, 1 vector_add_vec4_kernel. Both with kThreadsPerBlock threads per block.
constexpr int kTried = 2;

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

// Edit (2): four floats per thread and step (float4 loads and stores: every array starts an
// allocation of its own, lab1.cuh), the last n % 4 elements by the first threads, one each.
__global__ void vector_add_vec4_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, std::size_t n) {
  const std::size_t quads = n / 4;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const auto* a4 = reinterpret_cast<const float4*>(a);
  const auto* b4 = reinterpret_cast<const float4*>(b);
  auto* c4 = reinterpret_cast<float4*>(c);
  for (std::size_t q = first; q < quads; q += stride) {
    const float4 x = a4[q];
    const float4 y = b4[q];
    c4[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  const std::size_t tail = 4 * quads + first;
  if (tail < n) c[tail] = a[tail] + b[tail];
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Edit (3): the kernel this n's tuning gives: the next one to try, else the faster so far.
  Tuning& tuning = tuning_for(n);
  tuning.learn();
  const bool trying = tuning.launched < kTried;
  const int choice = trying ? tuning.launched : tuning.best;
  // The grid-stride loops make any grid correct for any n; the grid size only
  // sets speed. Enough blocks to fill every SM, but never more than there are
  // elements (or quads of them) for.
  const std::size_t per_thread = choice == 1 ? 4 : 1;
  const std::size_t blocks_for_n = std::max<std::size_t>(1, (n / per_thread + kThreadsPerBlock - 1) / kThreadsPerBlock);
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, static_cast<std::size_t>(kBlocksPerSm) * memlab::multiprocessor_count()));
  if (trying) tuning.start[choice].record(stream);
  if (choice == 1) {
    vector_add_vec4_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  } else {
    vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  }
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
