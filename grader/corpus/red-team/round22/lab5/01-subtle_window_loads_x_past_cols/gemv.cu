// Lab 5: GEMV, one thread per row, then x through a shared window, then a warp
// per row on the row-major matrix.
//
// The window: every thread of the block loads x[c0 + threadIdx.x] into it, and
// the inner loop stops at cols, so the last, shorter window is handled by the
// loop bound alone.

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>

#include <algorithm>

namespace lab5 {

namespace {

constexpr int kThreads = 256;
constexpr unsigned kAll = 0xffffffffu;

unsigned blocks(std::size_t items, std::size_t per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

__global__ void row_major_rows(std::size_t rows, std::size_t cols, double alpha, const double* __restrict__ a,
                               const double* __restrict__ x, double beta, double* __restrict__ y) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  double s = 0.0;
  for (std::size_t c = 0; c < cols; ++c) s += a[r * cols + c] * x[c];
  y[r] = alpha * s + beta * y[r];
}

__global__ void column_major_rows(std::size_t rows, std::size_t cols, double alpha, const double* __restrict__ a,
                                  const double* __restrict__ x, double beta, double* __restrict__ y) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  double s = 0.0;
  for (std::size_t c = 0; c < cols; ++c) s += a[c * rows + r] * x[c];
  y[r] = alpha * s + beta * y[r];
}

__global__ void shared_window_rows(std::size_t rows, std::size_t cols, double alpha, const double* __restrict__ a,
                                   const double* __restrict__ x, double beta, double* __restrict__ y) {
  __shared__ double window[kThreads];
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  double s = 0.0;
  for (std::size_t c0 = 0; c0 < cols; c0 += kThreads) {
    window[threadIdx.x] = x[c0 + threadIdx.x];
    __syncthreads();
    const std::size_t width = cols - c0 < kThreads ? cols - c0 : kThreads;
    if (r < rows) {
      for (std::size_t j = 0; j < width; ++j) s += a[(c0 + j) * rows + r] * window[j];
    }
    __syncthreads();
  }
  if (r < rows) y[r] = alpha * s + beta * y[r];
}

__global__ void warp_rows(std::size_t rows, std::size_t cols, double alpha, const double* __restrict__ a,
                          const double* __restrict__ x, double beta, double* __restrict__ y) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(kThreads / 32) + threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  if (r >= rows) return;
  const double* line = a + r * cols;
  double s = 0.0;
  for (std::size_t c = lane; c < cols; c += 32) s += line[c] * __ldg(x + c);
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(kAll, s, off);
  if (lane == 0) y[r] = alpha * s + beta * y[r];
}

}  // namespace

void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
                    double* y, cudaStream_t stream) {
  if (rows == 0) return;
  row_major_rows<<<blocks(rows, kThreads), kThreads, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK(cudaGetLastError());
}

void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream) {
  if (rows == 0) return;
  column_major_rows<<<blocks(rows, kThreads), kThreads, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK(cudaGetLastError());
}

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
                   double* y, cudaStream_t stream) {
  if (rows == 0) return;
  shared_window_rows<<<blocks(rows, kThreads), kThreads, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK(cudaGetLastError());
}

Layout fast_layout() { return Layout::row_major; }

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  if (rows == 0) return;
  warp_rows<<<blocks(rows, kThreads / 32), kThreads, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK(cudaGetLastError());
}

}  // namespace lab5
