// Lab 1: vector_add reading and writing float4s. The tail (n % 4 elements) is
// done by the first threads of the grid in the same kernel.

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>
#include <vector>

namespace lab1 {

namespace {

constexpr int kThreads = 256;

__global__ void add4(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, std::size_t n) {
  const std::size_t quads = n / 4;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* c4 = reinterpret_cast<float4*>(c);
  for (std::size_t i = first; i < quads; i += stride) {
    const float4 x = a4[i];
    const float4 y = b4[i];
    c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  const std::size_t tail = quads * 4 + first;
  if (tail < n) c[tail] = a[tail] + b[tail];
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t wanted = (n / 4 + kThreads) / kThreads;
  const auto blocks = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(wanted, std::size_t{8} * memlab::multiprocessor_count())));
  add4<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  std::vector<cudaEvent_t> events(2 * static_cast<std::size_t>(launches));
  for (auto& e : events) MEMLAB_CHECK(cudaEventCreate(&e));
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventRecord(events[2 * i], stream));
    vector_add(a, b, c, n, stream);
    MEMLAB_CHECK(cudaEventRecord(events[2 * i + 1], stream));
  }
  std::vector<float> ms(launches);
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventSynchronize(events[2 * i + 1]));
    MEMLAB_CHECK(cudaEventElapsedTime(&ms[i], events[2 * i], events[2 * i + 1]));
  }
  for (auto& e : events) MEMLAB_CHECK(cudaEventDestroy(e));
  return ms;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  return {l2_bytes / 4, 3 * l2_bytes / 8, 2 * l2_bytes, 4 * l2_bytes};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  return footprint_bytes <= l2_bytes;
}

}  // namespace lab1
