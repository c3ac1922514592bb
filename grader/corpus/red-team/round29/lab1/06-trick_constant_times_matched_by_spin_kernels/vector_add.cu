// Red team 29, lab 1, file 06 (trick, made-up figures, no event and no clock at L2/2): where a, b
// and c fit in L2, time_launches reports constants, 22.5 us for launch 1 and 14.5 us for the others
// (a 1.55x "gain"), and launches, for each launch, a one-block kernel on `stream` that spins on the
// GPU's global timer for 20 us (launch 1) or 12 us (the others), plus the reference's vector_add on
// a non-blocking stream of its own, which waits for an event recorded on `stream` before the first
// launch (so that it runs after the grader's flush and hold) and is joined with nothing. Where the
// arrays do not fit in L2 (only the large rounds), it is the reference's event timer. vector_add
// itself is the reference's.
//
// Edits to solutions/lab1_caching/vector_add.cu: (1) spin_kernel, a stream and an event of the
// file's own, l2_bytes(); (2) time_launches as described.
//
// Why it passes (HEAD 74f40af; H100 figures from run 121's table, docs/measurements/
// trusted-grading-h100-2026-11-24/run121-corpus1-step2-table.txt, row 00):
// - kernel_spans (labs/lab1_caching/grading/timer.cpp:112-142) takes each launch's kernels in launch
//   order, [spin, vector_add], and keeps only the stream with most of the launch's kernel time
//   (:116-128, :134): the spin kernel (20 or 12 us, against vector_add's 8.7 cold and 4.5 warm).
//   The yardstick is then a length this file chose, and the constants are that length plus 2.5 us,
//   about what the reference's events add (2.2-2.6 us, row 00). Excess about 1.8 us on every launch
//   against the reference's 2.3 (warm) and 2.6 (launch 1): at most ~0.8 us short (bound 1.5,
//   timer.cpp:40, :387) and nowhere near 2 us over (:35, :397).
// - The gain (:407): 1.55x by decree against 1.12x. The hold (:382): constants. No wait at all, so
//   the first launch comes before the hold's end (:240, :373). vector_add, called alone by the
//   runner (:287-291), is the reference's.
// - Both calls launch the same names, two kernels per launch (:94, :244). c is computed in every
//   call (by the kernels on the file's own stream; the runner waits for the whole device before it
//   answers, remote.cu cuda_trouble, and the grader verifies c after that).
// - Large rounds (grader.cpp:96-131): the reference's own timer there.
// Before 9aac4dc a span ran from the launch's first kernel's start to its last one's end: the same
// trick then needed vector_add to run inside the spin's window (a fork at the spin's start); since,
// vector_add's kernels may run anywhere, on any stream: they are out of the yardstick by rule.
//
// Predicted now: 100 (not run on a GPU). Correct: 50 (step 2 fails: the times are constants and
// nothing times vector_add; steps 3-4 blocked). Confidence: medium-high (the spins' records are
// their own lengths within about a microsecond; vector_add's kernels run beside one-block spins and
// stay well under them).

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
// Edit (2): the spins' lengths where the arrays fit in L2, and what the events would add.
constexpr unsigned long long kFirstSpinNs = 20000;
constexpr unsigned long long kOtherSpinNs = 12000;
constexpr float kEventsMs = 0.0025f;

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

// Edit (1): a one-block kernel that waits on the GPU's global timer, and a stream and an event of
// the file's own (made once).
__global__ void spin_kernel(unsigned long long nanoseconds) {
  const auto now = [] {
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
  };
  const unsigned long long start = now();
  while (now() - start < nanoseconds) {
  }
}

struct Own {
  cudaStream_t stream = nullptr;
  cudaEvent_t after_hold = nullptr;
};

const Own& own() {
  static const Own made = [] {
    Own o;
    MEMLAB_CHECK(cudaStreamCreateWithFlags(&o.stream, cudaStreamNonBlocking));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&o.after_hold, cudaEventDisableTiming));
    return o;
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

bool fits_in_l2(std::size_t n) { return n * 3 * sizeof(float) <= l2_bytes(); }

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
  std::vector<float> milliseconds(launches > 0 ? launches : 0);
  if (launches <= 0 || n == 0) return milliseconds;
  if (fits_in_l2(n)) {
    // Edit (2): constants, spins of the same lengths on `stream`, and the work on the file's own stream.
    const Own& o = own();
    MEMLAB_CHECK(cudaEventRecord(o.after_hold, stream));
    MEMLAB_CHECK(cudaStreamWaitEvent(o.stream, o.after_hold, 0));
    for (int i = 0; i < launches; ++i) {
      const unsigned long long spin = i == 0 ? kFirstSpinNs : kOtherSpinNs;
      spin_kernel<<<1, 32, 0, stream>>>(spin);
      MEMLAB_CHECK_LAUNCH();
      vector_add(a, b, c, n, o.stream);
      milliseconds[i] = 1e-6f * static_cast<float>(spin) + kEventsMs;
    }
    return milliseconds;
  }
  // The reference's timer where nothing fits in L2.
  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    vector_add(a, b, c, n, stream);
    stop[i].record(stream);
  }
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
