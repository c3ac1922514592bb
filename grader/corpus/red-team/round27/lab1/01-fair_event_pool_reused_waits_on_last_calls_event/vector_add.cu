// Red team 27, lab 1, file 01 (fair): a grid-stride vector_add with 512-thread
// blocks, 4 per SM (the same 2048 resident threads per SM as the reference's
// 8 x 256), and a timer whose events are made once and kept in a pool across
// calls. Before it records anything, the timer makes sure the pool's events are
// free to record again: cudaEventSynchronize on the last stop event of the
// previous call. That is a wait before the first event, which the guide warns
// about, but on an event the previous call already waited for: it returns at
// once and drains nothing (the hold queued by the grader is behind it, not in
// front of it).
//
// What a student did and why: "events are not free to create, make them once";
// the wait at the top is the habit of never re-recording an event that might
// still be pending. Every event and launch is recorded before the one wait
// for the last stop event, as the guide asks.
//
// Expected: 100 (every check passes), fairly sure.
//  - step1.speed: 4 x 512 threads per SM is the reference's residency
//    (labs/lab1_caching/README.md step 1 table; solutions' kBlocksPerSm 8 x 256).
//  - step2.timer: the first launch of each call comes before the hold ends, so
//    Launches::launched_after_hold stays false (runner_main.cpp:56-59,
//    timer.cpp:358); the events are per-launch pairs like the reference's, so
//    the excess is the reference timer's (timer.cpp:34, 39); one kernel per
//    launch (timer.cpp:93).
//  - steps 3-4: footprints 1/8, 1/4, 3/8, 1/2 and 2, 3, 6 x L2; the rule
//    "fits in half of L2" is right for every graded footprint (sweep.cpp:76-80).

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <vector>

namespace lab1 {

namespace {

constexpr int kThreads = 512;
constexpr int kBlocksPerSm = 4;  // 4 x 512 = 2048 threads: a full SM on Hopper and Ampere

// The events of time_launches, made once per process and grown when a call asks
// for more launches than any call before it.
struct EventPool {
  std::vector<cudaEvent_t> start;
  std::vector<cudaEvent_t> stop;
  int last_used = -1;  // index of the stop event the previous call waited for

  void grow_to(int count) {
    while (static_cast<int>(start.size()) < count) {
      cudaEvent_t begin = nullptr;
      cudaEvent_t end = nullptr;
      MEMLAB_CHECK(cudaEventCreate(&begin));
      MEMLAB_CHECK(cudaEventCreate(&end));
      start.push_back(begin);
      stop.push_back(end);
    }
  }
};

EventPool& event_pool() {
  static EventPool pool;
  return pool;
}

}  // namespace

// Thread t of the grid handles t, t + grid, t + 2 grid, ...: a warp reads 32
// consecutive floats of a and b and writes 32 of c in each pass.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n) {
  const std::size_t grid = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += grid) {
    c[i] = a[i] + b[i];
  }
}

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t blocks_needed = (n + kThreads - 1) / kThreads;
  const std::size_t blocks_resident = static_cast<std::size_t>(kBlocksPerSm) * memlab::multiprocessor_count();
  const unsigned blocks = static_cast<unsigned>(blocks_needed < blocks_resident ? blocks_needed : blocks_resident);
  vector_add_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  EventPool& pool = event_pool();
  // Never re-record an event that may still be pending: the previous call
  // waited for this one already, so this returns at once.
  if (pool.last_used >= 0) MEMLAB_CHECK(cudaEventSynchronize(pool.stop[pool.last_used]));
  pool.grow_to(launches);

  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventRecord(pool.start[i], stream));
    vector_add(a, b, c, n, stream);
    MEMLAB_CHECK(cudaEventRecord(pool.stop[i], stream));
  }
  // One wait, for the last stop event: every earlier event is done by then.
  MEMLAB_CHECK(cudaEventSynchronize(pool.stop[launches - 1]));
  pool.last_used = launches - 1;

  std::vector<float> milliseconds(launches, 0.0f);
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventElapsedTime(&milliseconds[i], pool.start[i], pool.stop[i]));
  }
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  // Four that fit in half of L2 (not smaller than L2/8: launch overhead), three
  // well past it.
  return {l2_bytes / 8, l2_bytes / 4, 3 * l2_bytes / 8, l2_bytes / 2, 2 * l2_bytes, 3 * l2_bytes, 6 * l2_bytes};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  // My prediction: a, b and c must fit with room to spare (other lines live in
  // L2 too), so only footprints up to half of L2 get faster; about 1.5x there,
  // since a and b (2/3 of the bytes) come from L2 instead of DRAM.
  return 2 * footprint_bytes <= l2_bytes;
}

}  // namespace lab1
