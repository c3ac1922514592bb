// Lab 1: vector_add with 16-byte loads where the three arrays allow them, a
// scalar tail, and a grid sized from the occupancy calculator.

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>

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
  std::vector<cudaEvent_t> begin(launches), end(launches);
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventCreate(&begin[i]));
    MEMLAB_CHECK(cudaEventCreate(&end[i]));
  }
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventRecord(begin[i], stream));
    vector_add(a, b, c, n, stream);
    MEMLAB_CHECK(cudaEventRecord(end[i], stream));
  }
  std::vector<float> ms(launches, 0.0f);
  if (launches > 0) MEMLAB_CHECK(cudaEventSynchronize(end[launches - 1]));
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventElapsedTime(&ms[i], begin[i], end[i]));
    MEMLAB_CHECK(cudaEventDestroy(begin[i]));
    MEMLAB_CHECK(cudaEventDestroy(end[i]));
  }
  return ms;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  return {l2_bytes / 6, l2_bytes / 3, 3 * l2_bytes, 6 * l2_bytes};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  return footprint_bytes < l2_bytes;
}

}  // namespace lab1
