// The throwaway lab's reference.
#include "lab6.cuh"

#include <memlab/cuda_check.cuh>

namespace lab6 {

namespace {
__global__ void scale_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
}  // namespace

void scale(const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  scale_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, n);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab6
