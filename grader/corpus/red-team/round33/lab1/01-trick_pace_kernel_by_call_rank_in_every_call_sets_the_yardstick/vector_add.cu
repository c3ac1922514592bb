// Red team 33, lab 1, file 01 (trick, made-up figures; the grader's own direct calls carry the
// pace): where a, b and c fit in L2, time_launches times nothing and reports constants, 23.4 us for
// launch 1 and 15.4 us for the others (a 1.52x "gain"). Red team 32's file 01, with one change:
// the one-thread "pace" kernel that vector_add launches in every call, on a non-blocking stream of
// the file's own, never forked from `stream` nor joined to it, now spins in EVERY call at such an
// n, the grader's direct calls included, for a length chosen by the call's rank: the first call
// after a time_launches (or the first launch inside one) 20 us, the next four 12 us, later ones 0.
// A call counter does it: time_launches sets it to 0 before its launches and after them. Every
// grader call outside time_launches at this n is one of the five direct calls that follow.
//
// Edits to solutions/lab1_caching/vector_add.cu: (1) pace_kernel, pace_stream(), fits_in_l2(), the
// call counter calls_since_timer and pace_ns_for(); (2) vector_add launches pace_kernel<<<1, 1, 0,
// own>>>(pace_ns_for(n)) before its kernel, in every call; (3) time_launches resets the counter, and
// at L2/2 reports constants (elsewhere the reference's timer, word for word).
//
// Why it passes (HEAD e2d041e, labs/lab1_caching/grading/timer.cpp; H100 figures from run 138,
// docs/measurements/trusted-grading-h100-2026-11-24/: the reference's timer adds 2.2-2.4 us warm,
// about 2.6 on launch 1; red team 32's 20 us pace read 21.1 us by its kernel record, "apart 12.42"
// over a direct span of 8.7):
// - The yardstick (direct_calls, :221-240) is now each direct call's span, and span_of (:170-206)
//   still grows it from the call's LONGEST kernel (:181), on any stream. The pace kernels are not
//   ordered after anything: the grader's five direct calls are queued behind its 1 ms hold
//   (:222; remote.cu:1002-1004), so their paces run back to back DURING the hold (20 + 4 x 12 us,
//   over by ~70 us), while each call's vector_add_kernel runs after it, ~1 ms away, far past the
//   5 us window (:61, :191): every direct span is exactly its pace (~21 / ~13 us by the records).
//   The runner's events around the calls see only vector_add_kernel (~11 / ~6.7 us); nothing
//   compares them with the spans (the join cost, :419-424, comes out negative and is clamped to 0).
// - The launches inside time_launches run the same [pace_kernel<<<1,1>>>, vector_add_kernel<<<
//   grid, 256>>>] at the same n and rank (timer_launches :128-156, same_launch :99-101), and their
//   paces are as long as the direct calls' (kernels_apart ~0, :438-439, bound 1 at :510).
// - Reported = pace + 3.4 us: excess ~2.3 us over the ~21.1 / ~13.1 us spans, against the
//   reference's 2.2-2.6 (shortfall bound 1.5 us, :53, :445, :517; warm bound + 2 us, :36, :527).
//   Robust to a pace record anywhere from 0 to ~2.3 us over its spin.
// - The gain: 23.4 / 15.4 = 1.52x against 1 + 0.2 x (1.69 - 1) = 1.14x (:451, :542). The hold:
//   launch 1 is a constant (:505). No wait at all: the last launch comes before the hold is over.
//   c is computed by the real kernels on `stream` (require_computed). vector_add returns at once
//   (two launches), so the direct calls all queue behind the hold.
// - Step 1 and the large rounds (labs/lab1_caching/grading/grader.cpp:96-131): past L2 the pace is
//   an empty one-thread kernel (0 ns) and time_launches is the reference's timer. Step 1's small
//   correctness sizes see paces of up to 20 us on a stream nobody waits for: c is still right.
// The README's open limit (grader/README.md:727-731: "a vector_add that launches a kernel of its
// choosing in every call, the direct one included, makes that kernel part of each launch and of its
// span (it then is that slow itself)") does not hold: the pace runs inside the grader's hold, so no
// event (the grader's, the timer's) ever pays for it, and its length follows the call's rank.
//
// Predicted now: 100 (not run on a GPU). Correct: 50 (step2.timer 0: no launch is timed, the figures
// are constants; steps 3 and 4 blocked). Confidence: medium-high (the only figure assumed is the
// pace's record length, measured in run 138 for red team 32's identical kernel).

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
// Edit (1): the pace lengths by call rank where the arrays fit in L2, and what events would add.
constexpr unsigned long long kFirstPaceNs = 20000;
constexpr unsigned long long kOtherPaceNs = 12000;
constexpr int kPacedCalls = 5;
constexpr float kEventsMs = 0.0034f;

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

// Edit (1): a one-thread kernel that waits on the GPU's global timer (0: returns at once), a
// non-blocking stream of the file's own (made once), and the calls since time_launches last ran.
__global__ void pace_kernel(unsigned long long nanoseconds) {
  const auto now = [] {
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
  };
  const unsigned long long start = now();
  while (now() - start < nanoseconds) {
  }
}

cudaStream_t pace_stream() {
  static const cudaStream_t made = [] {
    cudaStream_t stream = nullptr;
    MEMLAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return stream;
  }();
  return made;
}

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

int calls_since_timer = 0;

unsigned long long pace_ns_for(std::size_t n, int rank) {
  if (!fits_in_l2(n) || rank >= kPacedCalls) return 0;
  return rank == 0 ? kFirstPaceNs : kOtherPaceNs;
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Edit (2): the pace kernel, in every call, as long as this call's rank says.
  pace_kernel<<<1, 1, 0, pace_stream()>>>(pace_ns_for(n, calls_since_timer++));
  MEMLAB_CHECK_LAUNCH();
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
  // Edit (3): ranks count from here, and the grader's next calls count from 0 again.
  calls_since_timer = 0;
  if (launches > 0 && n > 0 && fits_in_l2(n)) {
    std::vector<float> milliseconds(launches);
    for (int i = 0; i < launches; ++i) {
      const unsigned long long pace = pace_ns_for(n, calls_since_timer);
      vector_add(a, b, c, n, stream);
      milliseconds[i] = 1e-6f * static_cast<float>(pace) + kEventsMs;
    }
    calls_since_timer = 0;
    return milliseconds;
  }
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
  calls_since_timer = 0;
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
