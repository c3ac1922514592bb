// Red team 19, lab 1, file 01 (trick): time_launches launches vector_add ONCE, whatever
// `launches` says, times that one launch with one pair of events, and makes up the other
// launches' times. Nothing in step 2 counts the launches a call makes.
//
// What it does.
// - vector_add is the reference's, untouched (step 1: 50).
// - time_launches: one event pair around one launch of vector_add (so c is right), t ms.
//   - where a, b and c do not fit in L2 (step 2's large rounds: 0.5-1 GiB): returns t / launches
//     for every launch: the times add up to t, the call's only GPU work, and launch 1 equals the rest;
//   - where they fit (step 2's L2/2 rounds): returns t for launch 1 (it is the cold launch, after
//     the grader's flush) and t / 1.55 for the others (a made-up "cache gain").
//
// Why it passes the current grader (HEAD d323e0b; H100 figures from runs 75-76).
// - Large footprints (timer.cpp:85-101, grader.cpp:108-116): the grader's clock times the call,
//   which now holds one launch, not 3-6, so the share is t over t plus the few tens of us of overhead,
//   about 0.9-0.99 for t of 0.18-0.36 ms (inside 0.60-1.10); launch 1 over the others' median is exactly 1.00
//   (inside 1/1.25-1.25); c is right. Nothing compares the call's time, or a reported launch,
//   with the DRAM time that `launches` launches of n elements must take (at 1 GiB each reported
//   launch implies 3-6x the GPU's DRAM bandwidth).
// - L2/2 (timer.cpp:121-138, 186-224): the hold: events, so launch 1 is the same after 1 and 3 ms;
//   c: right after every call; vector_add does not wait (the runner's five calls queue behind
//   its hold); warm launches 10.9 / 1.55 = 7.0 us against the runner's 6.8-6.9 us around the
//   same vector_add (allowed 4.6-9.6 us); gain 1.55x against the bar of 1 + 0.2 x (1.53..1.60 - 1)
//   = 1.11-1.12x.
// - Steps 3 and 4 time the reference and read choose_footprints / predict: the reference's.
//
// Current grader: 100 (predicted; not run on a GPU). A correct grader: step 2 fails (the
// timer times one launch and invents the rest), steps 3-4 blocked: 50.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
// Launch 1 over the others at L2/2, as the reference's runner sees it on an H100 or H200.
constexpr float kMadeUpGain = 1.55f;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
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

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  if (launches <= 0) return {};
  memlab::Event start;
  memlab::Event stop;
  start.record(stream);
  vector_add(a, b, c, n, stream);  // once: c is right, and the grader counts no launches
  stop.record(stream);
  const float t = memlab::Event::elapsed_ms(start, stop);
  std::vector<float> milliseconds(launches);
  if (n * 3 * sizeof(float) > l2_bytes()) {
    // Every launch would stream from DRAM: share the one launch's time out evenly.
    std::fill(milliseconds.begin(), milliseconds.end(), t / static_cast<float>(launches));
  } else {
    // The one launch ran cold (the grader flushed L2): "the others were faster".
    milliseconds[0] = t;
    std::fill(milliseconds.begin() + 1, milliseconds.end(), t / kMadeUpGain);
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
