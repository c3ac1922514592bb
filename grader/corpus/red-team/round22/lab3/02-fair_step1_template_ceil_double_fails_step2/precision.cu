// Lab 3: float vs double. Block-per-row sums; step 2 with Kahan in every thread.
//
// Step 1's template works out how many passes each thread makes over its row
// with ceil(cols / blockDim.x). Step 2's kernel is a plain strided Kahan loop,
// all in float.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>
#include <cmath>

namespace lab3 {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr unsigned kAll = 0xffffffffu;

// Step 1: one block per row; each thread makes `passes` passes, one element of
// each block-wide stretch of the row (coalesced), then a tree.
template <typename real>
__global__ void block_row_sums(const real* __restrict__ matrix, real* __restrict__ sums, std::size_t cols) {
  __shared__ real partial[kWarps];
  const real* line = matrix + blockIdx.x * cols;
  const std::size_t passes = static_cast<std::size_t>(ceil(static_cast<double>(cols) / blockDim.x));
  real sum = 0;
  for (std::size_t p = 0; p < passes; ++p) {
    const std::size_t c = p * blockDim.x + threadIdx.x;
    if (c < cols) sum += line[c];
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(kAll, sum, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < kWarps ? partial[threadIdx.x] : real(0);
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(kAll, sum, offset);
    if (threadIdx.x == 0) sums[blockIdx.x] = sum;
  }
}

// A Kahan pair and the way two of them are joined (both in float).
struct Kahan {
  float s = 0.0f;
  float c = 0.0f;
  __device__ void add(float x) {
    const float y = x - c;
    const float t = s + y;
    c = (t - s) - y;
    s = t;
  }
  __device__ void join(float other_s, float other_c) {
    add(other_s);
    add(-other_c);
  }
};

// Step 2: one block per row, strided (coalesced) loads, Kahan in every thread.
__global__ void kahan_row_sums(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t cols) {
  __shared__ float part_s[kWarps];
  __shared__ float part_c[kWarps];
  const float* line = matrix + blockIdx.x * cols;
  Kahan k;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) k.add(line[c]);
  for (int offset = 16; offset > 0; offset /= 2) {
    const float os = __shfl_down_sync(kAll, k.s, offset);
    const float oc = __shfl_down_sync(kAll, k.c, offset);
    k.join(os, oc);
  }
  if (threadIdx.x % 32 == 0) {
    part_s[threadIdx.x / 32] = k.s;
    part_c[threadIdx.x / 32] = k.c;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    Kahan w;
    if (threadIdx.x < kWarps) {
      w.s = part_s[threadIdx.x];
      w.c = part_c[threadIdx.x];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      const float os = __shfl_down_sync(kAll, w.s, offset);
      const float oc = __shfl_down_sync(kAll, w.c, offset);
      w.join(os, oc);
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = w.s - w.c;
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
  kahan_row_sums<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(matrix, sums, cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_horner(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) { launch_horner(x, y, n, stream); }

}  // namespace lab3
