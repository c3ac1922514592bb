// Red team 27, lab 1, file 03 (fair): a float4 grid-stride kernel that reads
// through __ldg, with its grid sized by cudaOccupancyMaxActiveBlocksPerMultiprocessor
// (asked once per process) times the SM count, and the n % 4 leftover elements
// done by the same kernel (no second launch). The timer makes each pair of
// events just before it records them, inside the loop, and destroys them after
// reading; it waits once, on the last stop event.
//
// What a student did and why: lab1.cuh promises allocation-aligned arrays, so a
// float4 view of a, b and c needs no test; the occupancy API is the textbook way
// to size a persistent grid; the events are made where they are used.
//
// Expected: 100, fairly sure.
//  - step1.correct: the float4 part covers 4 * (n / 4) elements, the tail loop the
//    rest; n = 1, 31, 32, 33 ... exercise both (grader.cpp:57).
//  - step1.speed: float4 grid-stride reached 106% of the copy kernel on an H200
//    (README "Going further"); round 6's float4 file graded 100 (corpus.py).
//  - step2.timer: making an event is host work; the launches queue behind the
//    grader's hold anyway (arrays.hpp:30), so nothing of it is inside any event's
//    interval. One kernel per launch (timer.cpp:93). The occupancy query is made
//    once, so vector_add costs the host no more than the reference's.
//  - steps 3-4: footprints L2/8, 3L2/16, L2/3, L2/2 and 2 L2, 8 L2.

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <vector>

namespace lab1 {

namespace {

constexpr int kThreads = 256;

}  // namespace

// Pass p, thread t: float4 number p * grid + t of a and b (16 bytes each), so a
// warp reads 512 contiguous bytes of each array. Then the last n % 4 floats,
// one per thread of the first block.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n) {
  const std::size_t quads = n / 4;
  const std::size_t grid = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* c4 = reinterpret_cast<float4*>(c);
  for (std::size_t q = first; q < quads; q += grid) {
    const float4 x = __ldg(a4 + q);
    const float4 y = __ldg(b4 + q);
    c4[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  const std::size_t tail = 4 * quads + first;  // at most 3 of these
  if (tail < n) c[tail] = a[tail] + b[tail];
}

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // How many of our blocks an SM holds at once, asked once: the answer does not change.
  static const int blocks_per_sm = [] {
    int blocks = 0;
    MEMLAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, vector_add_kernel, kThreads, 0));
    return blocks;
  }();
  const std::size_t resident = static_cast<std::size_t>(blocks_per_sm) * memlab::multiprocessor_count();
  const std::size_t quads = n / 4;
  const std::size_t wanted = (quads + kThreads - 1) / kThreads;
  std::size_t blocks = wanted < resident ? wanted : resident;
  if (blocks == 0) blocks = 1;  // n < 4: only the tail, done by block 0
  vector_add_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  std::vector<cudaEvent_t> start(launches, nullptr);
  std::vector<cudaEvent_t> stop(launches, nullptr);
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventCreate(&start[i]));
    MEMLAB_CHECK(cudaEventCreate(&stop[i]));
    MEMLAB_CHECK(cudaEventRecord(start[i], stream));
    vector_add(a, b, c, n, stream);
    MEMLAB_CHECK(cudaEventRecord(stop[i], stream));
  }
  MEMLAB_CHECK(cudaEventSynchronize(stop[launches - 1]));

  std::vector<float> milliseconds(launches, 0.0f);
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventElapsedTime(&milliseconds[i], start[i], stop[i]));
    MEMLAB_CHECK(cudaEventDestroy(start[i]));
    MEMLAB_CHECK(cudaEventDestroy(stop[i]));
  }
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  return {l2_bytes / 8, 3 * l2_bytes / 16, l2_bytes / 3, l2_bytes / 2, 2 * l2_bytes, 8 * l2_bytes};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  // Below half of L2 the whole footprint survives between launches.
  return footprint_bytes <= l2_bytes / 2;
}

}  // namespace lab1
