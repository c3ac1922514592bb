// Lab 3: float vs double.
//
// Step 2 without compensation: every thread keeps two plain float sums, one for
// the terms under 1 in magnitude and one for the rest, and the block reduces
// the two separately and adds them once at the end. On rows where a few large
// terms swamp many small ones, the small ones are no longer added to a large
// partial sum, so none vanishes; on rows spread over decades, each thread of a
// block per row adds only cols / 256 terms. No Kahan step anywhere, no double.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>

namespace lab3 {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr unsigned kAll = 0xffffffffu;

template <typename real>
__device__ real warp_sum(real v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kAll, v, offset);
  return v;
}

template <typename real>
__global__ void block_row_sums(const real* __restrict__ matrix, real* __restrict__ sums, std::size_t cols) {
  __shared__ real partial[kWarps];
  const real* line = matrix + blockIdx.x * cols;
  real sum = 0;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) sum += line[c];
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = warp_sum(threadIdx.x < kWarps ? partial[threadIdx.x] : real(0));
    if (threadIdx.x == 0) sums[blockIdx.x] = sum;
  }
}

__global__ void split_row_sums(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t cols) {
  __shared__ float small_part[kWarps];
  __shared__ float large_part[kWarps];
  const float* line = matrix + blockIdx.x * cols;
  float small = 0.0f;
  float large = 0.0f;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = line[c];
    if (fabsf(v) < 1.0f) {
      small += v;
    } else {
      large += v;
    }
  }
  small = warp_sum(small);
  large = warp_sum(large);
  if (threadIdx.x % 32 == 0) {
    small_part[threadIdx.x / 32] = small;
    large_part[threadIdx.x / 32] = large;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    small = warp_sum(threadIdx.x < kWarps ? small_part[threadIdx.x] : 0.0f);
    large = warp_sum(threadIdx.x < kWarps ? large_part[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0) sums[blockIdx.x] = large + small;
  }
}

template <typename real>
__global__ void horner(const real* __restrict__ x, real* __restrict__ y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const real xi = x[i];
    real v = 1;
#pragma unroll 16
    for (int k = 0; k < kPolynomialDegree; ++k) v = v * xi + real(1);
    y[i] = v;
  }
}

template <typename real>
void launch_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  block_row_sums<real><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(matrix, sums, cols);
  MEMLAB_CHECK_LAUNCH();
}

template <typename real>
void launch_horner(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t blocks =
      std::min<std::size_t>((n + kThreads - 1) / kThreads, std::size_t{8} * memlab::multiprocessor_count());
  horner<real><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x, y, n);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_sums(matrix, sums, rows, cols, stream);
}

void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_sums(matrix, sums, rows, cols, stream);
}

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  split_row_sums<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(matrix, sums, cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_horner(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) { launch_horner(x, y, n, stream); }

}  // namespace lab3
