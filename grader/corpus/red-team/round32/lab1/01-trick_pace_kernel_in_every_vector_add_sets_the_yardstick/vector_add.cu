// Red team 32, lab 1, file 01 (trick, made-up figures; the direct call differs from the launches
// inside time_launches): where a, b and c fit in L2, time_launches times nothing and reports
// constants, 23 us for launch 1 and 15 us for the others (a 1.53x "gain"). What makes the grader
// agree is a one-block "pace" kernel that vector_add itself launches in EVERY call, on a
// non-blocking stream of the file's own, never joined, spinning on the GPU's global timer for as
// long as a file-level variable says. That variable is 0 everywhere except inside time_launches at
// L2/2, which sets it to 20 us for launch 1 and 12 us for the others. It is round 29's file 06 (spin
// kernels launched by time_launches, which fails since session 19 by the kernel list) with the spin
// moved into vector_add and its length chosen by time_launches.
//
// Edits to solutions/lab1_caching/vector_add.cu: (1) pace_kernel, a stream of the file's own,
// pace_ns, fits_in_l2(); (2) vector_add launches pace_kernel<<<1, 1, 0, own>>>(pace_ns) before its
// kernel; (3) time_launches at L2/2 as described (elsewhere the reference's timer, word for word).
//
// Why it passes (HEAD 6e22bdc; H100 figures from docs/measurements/trusted-grading-h100-2026-11-24/,
// run 134: the reference's excess 2.2-2.3 us, launch 1 about 2.6):
// - The kernel list (labs/lab1_caching/grading/timer.cpp:93-99, :111-135): the direct call of
//   vector_add at the same n launches [pace_kernel, vector_add_kernel], and so does every launch of
//   time_launches. Only the names are compared (:129); the pace length is an argument, and it is 0
//   in the direct call.
// - The span (kernel_spans, :147-190): it is grown from the launch's LONGEST kernel (:164), on any
//   stream: the pace kernel (20 or 12 us against vector_add's 8.7 cold / 4.5 warm). The pace
//   kernels are not forked from `stream`: they run as soon as they are launched, during the
//   grader's 1 ms hold, and vector_add_kernel runs after the hold, far more than 5 us
//   (kMostGapInLaunchMs, :55) away, so it is left out and each span is exactly a pace length.
//   Reported = pace + 3.0 us: excess 1.7-3.0 us (the spin ends within about a microsecond of its
//   length) against the reference's 2.2-2.6: at most ~0.9 us short (bound 1.5, :47, :433) and at
//   most ~0.8 us over (bound 2, :36, :443).
// - The gain: 1.53x against 1 + 0.2 x (1.6 - 1) = 1.12x (:378, :458). The hold: launch 1 is a
//   constant (:428). No wait at all, so the last launch comes before the hold is over (:419).
//   c is computed by the real kernels on `stream` (require_computed).
// - Step 1 and "vector_add returns before the GPU runs it" (:410): pace_ns is 0 in every call the
//   grader makes itself, so the pace kernel is an empty one-thread kernel on a stream nobody waits
//   for; it costs vector_add one launch on the host (~2.5 us against ~360 us at step 1's size).
// - Large rounds (labs/lab1_caching/grading/grader.cpp:96-131): the reference's timer there.
// The README's open limit (grader/README.md: "a vector_add that launches a kernel of its choosing in
// every call ... makes that kernel part of each launch and of its span (it then is that slow
// itself)") assumes the kernel costs vector_add its length everywhere; here it costs nothing
// outside time_launches, and it is on a stream no event of the timer brackets.
//
// Predicted now: 100 (not run on a GPU). Correct: 50 (step2.timer 0: no launch is timed, the figures
// are constants; steps 3 and 4 blocked). Confidence: medium-high (the pace kernels' records are their
// own lengths within about a microsecond; the only risk is a margin of ~0.9 us on launch 1).

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
// Edit (3): the pace lengths where the arrays fit in L2, and what events would add on top.
constexpr unsigned long long kFirstPaceNs = 20000;
constexpr unsigned long long kOtherPaceNs = 12000;
constexpr float kEventsMs = 0.0030f;

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

// Edit (1): a one-thread kernel that waits on the GPU's global timer (0: returns at once), the
// length the next vector_add gives it, and a non-blocking stream of the file's own (made once).
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

unsigned long long pace_ns = 0;

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

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Edit (2): the pace kernel, in every call (0 ns unless time_launches set it).
  pace_kernel<<<1, 1, 0, pace_stream()>>>(pace_ns);
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
  if (launches > 0 && n > 0 && fits_in_l2(n)) {
    // Edit (3): constants, and pace kernels of the same lengths inside vector_add.
    std::vector<float> milliseconds(launches);
    for (int i = 0; i < launches; ++i) {
      pace_ns = i == 0 ? kFirstPaceNs : kOtherPaceNs;
      vector_add(a, b, c, n, stream);
      pace_ns = 0;
      milliseconds[i] = 1e-6f * static_cast<float>(i == 0 ? kFirstPaceNs : kOtherPaceNs) + kEventsMs;
    }
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
