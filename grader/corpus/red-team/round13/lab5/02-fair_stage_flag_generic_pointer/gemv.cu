// Red team 13, file 02 (fair): steps 2 and 3 share one kernel; with stage_x, x is staged in
// shared memory and read through a pointer that may point to global memory (a generic load).
// Full marks.
// Lab 5 reference solution: GEMV with shared memory, row- vs column-major.
// Same functions as labs/lab5_gemv/gemv.cu; lab5.cuh documents them.

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>

namespace lab5 {

namespace {

constexpr int kThreadsPerRowBlock = 128;  // the Numba GEMV notebook's block size for one thread per row

unsigned int blocks_for(std::size_t threads, int per_block) {
  return static_cast<unsigned int>((threads + per_block - 1) / per_block);
}

}  // namespace

// ---- Step 1: one thread per row, row-major ----------------------------------

// Memory pattern: thread r walks row r, which is contiguous; but at each step
// the 32 threads of a warp read 32 different rows, cols * 8 bytes apart: 32
// sectors per load, of which each thread uses 8 bytes now (the rest, with luck,
// from L1 on its next three loads). x[c] is the same for the whole warp.
__global__ void gemv_row_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                      const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  const double* line = a + row * cols;
  double sum = 0.0;
  for (std::size_t c = 0; c < cols; ++c) sum += line[c] * x[c];
  y[row] = alpha * sum + beta * y[row];
}

void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                    double beta, double* y, cudaStream_t stream) {
  gemv_row_major_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 2: one thread per row, column-major -----------------------------------

// Memory pattern: at each step the 32 threads of a warp read 32 consecutive
// elements of column c: 256 bytes, 8 sectors, all used (coalesced).
// Steps 2 and 3 share one kernel: with stage_x, each window of x is copied to
// shared memory by the block and read from there; without it, read from global memory.
__global__ void gemv_column_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double beta, double* y, bool stage_x) {
  __shared__ double window[kThreadsPerRowBlock];
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kThreadsPerRowBlock) + threadIdx.x;
  const bool in_matrix = row < rows;
  double sum = 0.0;
  for (std::size_t start = 0; start < cols; start += kThreadsPerRowBlock) {
    const double* xw = x + start;
    if (stage_x) {
      const std::size_t c = start + threadIdx.x;
      window[threadIdx.x] = c < cols ? x[c] : 0.0;
      __syncthreads();
      xw = window;
    }
    const std::size_t width = cols - start < kThreadsPerRowBlock ? cols - start : kThreadsPerRowBlock;
    if (in_matrix) {
      for (std::size_t j = 0; j < width; ++j) sum += a[(start + j) * rows + row] * xw[j];
    }
    if (stage_x) __syncthreads();
  }
  if (in_matrix) y[row] = alpha * sum + beta * y[row];
}

void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream) {
  gemv_column_major_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y, false);
  MEMLAB_CHECK_LAUNCH();
}

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream) {
  gemv_column_major_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y, true);
  MEMLAB_CHECK_LAUNCH();
}

constexpr int kWarpSize = 32;
constexpr unsigned int kFullWarp = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;

Layout fast_layout() { return Layout::row_major; }

// Memory pattern: the warp of row r reads row r, 32 consecutive doubles per
// step (coalesced), and the same 32 elements of x; 32 times the threads of
// step 1, so enough loads are in flight to keep DRAM busy. The lanes' partial
// sums are added with shuffles.
__global__ void gemv_warp_per_row_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  const unsigned int lane = threadIdx.x % kWarpSize;
  if (row >= rows) return;  // the whole warp leaves together: the shuffles below need all 32 lanes
  const double* line = a + row * cols;
  double sum = 0.0;
  for (std::size_t c = lane; c < cols; c += kWarpSize) sum += line[c] * x[c];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
  if (lane == 0) y[row] = alpha * sum + beta * y[row];
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  gemv_warp_per_row_kernel<<<blocks_for(rows, kWarpsPerBlock), kWarpsPerBlock * kWarpSize, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
