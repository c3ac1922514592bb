// Red team 29, lab 1, file 01: fair. The reference, except that vector_add splits the array into
// four chunks and runs one on `stream` and one on each of three helper streams of its own (the
// textbook "one chunk per stream" pattern). The helpers wait for an event recorded on `stream`
// before the chunks (fork), and `stream` waits for an event recorded on each helper after its chunk
// (join): everything vector_add does is ordered with `stream` before and after it, and it waits for
// nothing on the host. time_launches is the reference's: a start and a stop event on `stream`
// around each call of vector_add, all recorded before the first wait. Every time it reports is the
// true event time of one whole launch of vector_add.
//
// Edits to solutions/lab1_caching/vector_add.cu: (1) vector_add_kernel takes the chunk's first
// index; (2) helper streams and events made once (helpers()); (3) vector_add forks, launches one
// chunk per stream with the reference's grid rule, and joins. time_launches, choose_footprints and
// predict_faster_when_warm are unchanged.
//
// Targets labs/lab1_caching/grading/timer.cpp at HEAD 74f40af, kernel_spans (:112-142): since
// 9aac4dc, a launch's span counts only the kernels of the stream that ran most of the launch's
// kernel time (:116-128), and skips the others (:134). Here the four chunk kernels of one launch
// run on four streams. Each uses the reference's grid, min(blocks, 8 x SMs) = 8 blocks of 256 per
// SM: one chunk fills every SM, so the next chunk's blocks are placed only as the previous chunk's
// retire, and the four run one after another. Each stream holds a quarter of the launch's kernel
// time, the "majority" stream is one of them (a near tie), and the span judged is one chunk's
// kernel: about a quarter of the launch, plus one ramp (about 1.5-2 us warm at L2/2 on an H100,
// where the whole launch takes 4.5 us: run 121's table, row 00).
//
// The events on `stream` bracket the whole fork-join, as they must: warm launches about 4.5-5.5 us
// of kernels plus the cross-stream joins plus the events' own ~2.3 us. Their excess over the
// recorded spans (timer.cpp:315) is then about 5-7 us where the reference's timer adds 2.2-2.4
// (run 121), and the bound is the reference's + 2.0 us (timer.cpp:35, :318, :397): step 2 fails,
// with the message that the timer "counts time when the GPU was not running your launch (a host
// clock?) or a wait between launches", which is false. Before 9aac4dc the span ran from the first
// chunk's start to the last chunk's end (gaps up to 1 us counted), the whole launch, and this file
// passed (the change's own example, red team 18's fork-join timer, has one kernel per launch).
// Nothing else in step 2 sees a difference: the large rounds' share and launch-1 ratio use only the
// events and the grader's clock (about 0.95 and 1.0); the cache's gain by these events is the
// reference's (about 1.6x); the hold is seen by events (no host clock); vector_add queues 14 calls
// to the runtime per call, about 30-50 us, well inside the 1 ms hold (timer.cpp:287-291); both calls
// of each round launch the same four kernels per launch (timer.cpp:244). Step 1: chunks of a
// full-occupancy grid each, about the reference's speed (a few ramps more over ~0.3 ms+).
//
// Predicted now: graded 50 (step2.timer 0, steps 3-4 blocked by step 2), on an H100.
// Correct: 100. Confidence: medium-high that the chunks run one after another (a kernel that fills
// every SM leaves no room for the next one's blocks); if the GPU interleaved them, each span would
// cover the launch and the file would pass. Two chunks (one helper) would be the same case with
// only ~T/2 excess, about 2.5-3.5 us over: likely failing too, but by less.

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
// Edit (2): the array is cut into this many chunks, one per stream (`stream` and three helpers).
constexpr int kStreams = 4;

// Memory pattern: as the reference's, over the chunk [first, n): consecutive threads of a warp
// touch consecutive floats, each element read and written exactly once.
// Edit (1): the chunk's first index.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t first, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = first + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}

// Edit (2): the helper streams (non-blocking: they take no part in the default stream's order)
// and the events that fork them from `stream` and join them back, made once.
struct Helpers {
  cudaStream_t streams[kStreams - 1] = {};
  cudaEvent_t fork = nullptr;
  cudaEvent_t joins[kStreams - 1] = {};
};

const Helpers& helpers() {
  static const Helpers made = [] {
    Helpers h;
    MEMLAB_CHECK(cudaEventCreateWithFlags(&h.fork, cudaEventDisableTiming));
    for (int s = 0; s < kStreams - 1; ++s) {
      MEMLAB_CHECK(cudaStreamCreateWithFlags(&h.streams[s], cudaStreamNonBlocking));
      MEMLAB_CHECK(cudaEventCreateWithFlags(&h.joins[s], cudaEventDisableTiming));
    }
    return h;
  }();
  return made;
}

void launch_chunk(const float* a, const float* b, float* c, std::size_t first, std::size_t end,
                  cudaStream_t on) {
  const std::size_t count = end - first;
  const std::size_t blocks_for_n = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, on>>>(a, b, c, first, end);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Edit (3): chunk s on stream s (0: the given stream), forked from it and joined back to it.
  const Helpers& h = helpers();
  const std::size_t chunk = (n + kStreams - 1) / kStreams;
  MEMLAB_CHECK(cudaEventRecord(h.fork, stream));
  for (int s = 0; s < kStreams; ++s) {
    const std::size_t first = std::min(n, static_cast<std::size_t>(s) * chunk);
    const std::size_t end = std::min(n, first + chunk);
    if (first == end) continue;
    if (s == 0) {
      launch_chunk(a, b, c, first, end, stream);
      continue;
    }
    MEMLAB_CHECK(cudaStreamWaitEvent(h.streams[s - 1], h.fork, 0));
    launch_chunk(a, b, c, first, end, h.streams[s - 1]);
    MEMLAB_CHECK(cudaEventRecord(h.joins[s - 1], h.streams[s - 1]));
    MEMLAB_CHECK(cudaStreamWaitEvent(stream, h.joins[s - 1], 0));
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
