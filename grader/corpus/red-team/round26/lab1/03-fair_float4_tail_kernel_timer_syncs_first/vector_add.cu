// Red team 26, lab 1, file 03 (fair): two fair files of the corpus put together. vector_add is
// round 22 file 01's (16-byte loads in one kernel, a scalar kernel for the n % 4 elements left,
// grids from the occupancy calculator); time_launches is red-team/lab1/06's (the reference's
// timer, a pair of events around each launch, all recorded before any wait, after one
// cudaStreamSynchronize "so that nothing earlier is inside the first pair"). Each passed alone in
// run 111 (rows 21 and 04: excess 2.13 and 2.54 us against the reference's 2.19 and 2.43). Every
// time it reports is the true event time of its own launch.
//
// Why it fails under the current grader (HEAD 45087a3), predicted on run 111's H100 figures.
// - At L2/2 on an H100, n = 52428800 / 2 / 12 = 2184533, and n % 4 = 1: each vector_add launches
//   two kernels, add_vec4 then add_scalar. The grader takes the span of each launch from its
//   first kernel's start to its last kernel's end (kernel_spans,
//   labs/lab1_caching/grading/timer.cpp:92-111), gap included, in the call with CUPTI's kernel
//   records (timer.cpp:189-213).
// - In that call every launch costs about 12 us more on the host (run 110; the grader's comment
//   at timer.cpp:181-184). The grader reckoned with it only for the timer's own figures, which it
//   drops. But this timer drained the stream's hold first, so nothing is queued: add_vec4 runs
//   (4.4 us) as soon as it is launched, and add_scalar starts only when the host has made its
//   launch call, about 15 us after add_vec4's. Each recorded span is about 15 + 1.5 = 16.5 us.
//   In the plain call the host launches a kernel in about 3 us, add_scalar queues behind a
//   running add_vec4, and the events read about 8.7 us warm (round 22 file 01's 8.6 us, plus the
//   sync-first timer's +0.1 us).
// - The excess (timer.cpp:272-283, 327-334): 8.7 - 16.5 = about -8 us, against at least
//   2.18-2.43 - 1 us. Step 2 fails with "Your timer must time each launch that time_launches
//   makes, between events around it", which is what it does. Even if the records cost the host
//   only half of 12 us, the excess would be about -1.5 us: still out.
// - Neither half alone trips it: a one-kernel vector_add has no gap inside a span (row 04), and
//   without the synchronise the hold keeps every launch queued in both calls, the spans being the
//   kernels and the queued gap between them (row 21: 6.4 us).
// - Everything else passes as in rows 04 and 21: the gain (about 12.8 / 8.7 = 1.5x; launch 1 is
//   longer still after the synchronise, row 04's 28.6 us), the hold (events), the waits check
//   (vector_add does not wait), the large rounds, step 1.
//
// Current grader: 50 (predicted; not run on a GPU): step 2 fails, steps 3-4 blocked. A correct
// grader: 100. (On a GPU where L2/24 is a multiple of 4 there is no add_scalar at L2/2, and the
// file passes as row 04 did.)
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lab1 {

namespace {

constexpr int kBlock = 512;

__global__ void __launch_bounds__(kBlock) add_vec4(const float4* __restrict__ a, const float4* __restrict__ b,
                                                   float4* __restrict__ c, std::size_t quads) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < quads; i += stride) {
    const float4 x = __ldg(a + i);
    const float4 y = __ldg(b + i);
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void __launch_bounds__(kBlock) add_scalar(const float* __restrict__ a, const float* __restrict__ b,
                                                     float* __restrict__ c, std::size_t first, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = first + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

// Resident blocks of a kernel on the whole GPU, asked once per kernel.
template <typename Kernel>
unsigned full_grid(Kernel kernel) {
  int device = 0;
  int sms = 0;
  int per_sm = 0;
  MEMLAB_CHECK(cudaGetDevice(&device));
  MEMLAB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  MEMLAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0));
  return static_cast<unsigned>(std::max(1, sms * std::max(1, per_sm)));
}

unsigned blocks_for(std::size_t items, unsigned most) {
  return static_cast<unsigned>(std::min<std::size_t>((items + kBlock - 1) / kBlock, most));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  static const unsigned vec_grid = full_grid(add_vec4);
  static const unsigned scalar_grid = full_grid(add_scalar);
  std::size_t done = 0;
  if (aligned16(a) && aligned16(b) && aligned16(c) && n >= 4) {
    const std::size_t quads = n / 4;
    add_vec4<<<blocks_for(quads, vec_grid), kBlock, 0, stream>>>(reinterpret_cast<const float4*>(a),
                                                                 reinterpret_cast<const float4*>(b),
                                                                 reinterpret_cast<float4*>(c), quads);
    MEMLAB_CHECK(cudaGetLastError());
    done = quads * 4;
  }
  if (done < n) {
    add_scalar<<<blocks_for(n - done, scalar_grid), kBlock, 0, stream>>>(a, b, c, done, n);
    MEMLAB_CHECK(cudaGetLastError());
  }
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  // Record every event before waiting on any, so the launches run back to back
  // exactly as they would untimed; each launch sits between its own two events.
  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  MEMLAB_CHECK(cudaStreamSynchronize(stream));  // nothing earlier inside the first event pair
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
  return {l2_bytes / 6, l2_bytes / 3, 3 * l2_bytes, 6 * l2_bytes};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  return footprint_bytes < l2_bytes;
}

}  // namespace lab1
