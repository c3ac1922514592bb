// Red team 35, lab 5, file 01 (subtle: the fast GEMV's row index wraps at 2^27 rows; every
// shape the grader checks has at most 65537). The reference, except that gemv_warp_per_row_kernel
// finds its row the way most CUDA code finds "my warp": the global thread index over 32,
//   const std::size_t row = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
// The product and the sum are 32-bit unsigned (blockIdx.x, blockDim.x, threadIdx.x are), and only
// the quotient is widened. With a warp per row the grid has 32 x rows threads, so the index wraps
// once rows >= 2^27 = 134,217,728: the warps of the last blocks then recompute rows 0, 1, ...
// (racing with the first blocks on y[0..], which they read and overwrite) and rows from 2^27 on
// are never written. A 134,217,729 x 1 matrix is 1 GB of doubles (y another 1 GB): a small,
// legal GEMV (lab5.cuh: rows and cols are std::size_t, "for a matrix A of rows x cols"; the check
// is named "the fast GEMV is correct for any shape").
//
// This is red team 27/32/33's product of 32-bit values (lab 1's vector_add, lab 3's polynomial),
// in a place where the grader's only large case cannot reach it: the check past 2^32 elements is
// square (labs/lab5_gemv/grading/problem.cpp:22-24, grading::kBeyond32Bits = 65537 x 65537, so
// 2,097,408 threads), and kShapes (labs/lab5_gemv/grading/grader.cpp:42-44) and the timing shape
// (by_gpu.hpp:38, 20000 x 20000) are smaller still. Lab 3's row sums have the same gap (a warp
// per row wraps at 2^27 rows: 2^27 + 1 rows of 32 floats is 17 GB), and so do lab 2's row sums
// (2^27 + 1 rows of 1 float is 512 MB): no check has a tall matrix.
//
// Edit to solutions/lab5_gemv/gemv.cu: (1) in gemv_warp_per_row_kernel, the row from the global
// thread index (32-bit) divided by the warp size, instead of blockIdx.x * size_t{8} + warp.
//
// Predicted now: 100.
// Correct: step4.correct 0 (85; step4.speed needs only step 2).
// Confidence: high (prediction: no shape reaches 2^27 rows); high (verdict).

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
__global__ void gemv_column_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  double sum = 0.0;
  for (std::size_t c = 0; c < cols; ++c) sum += a[c * rows + row] * x[c];
  y[row] = alpha * sum + beta * y[row];
}

void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream) {
  gemv_column_major_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 3: x through a window in shared memory ---------------------------------

// Memory pattern: as step 2 for A. x is read from global memory once per block
// (each thread copies one element per window) instead of once per thread.
__global__ void gemv_shared_x_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                     const double* x, double beta, double* y) {
  __shared__ double window[kThreadsPerRowBlock];
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kThreadsPerRowBlock) + threadIdx.x;
  const bool in_matrix = row < rows;  // threads past the last row still help load x and reach the barriers
  double sum = 0.0;
  for (std::size_t start = 0; start < cols; start += kThreadsPerRowBlock) {
    const std::size_t c = start + threadIdx.x;
    window[threadIdx.x] = c < cols ? x[c] : 0.0;
    __syncthreads();  // read after write: the whole window is loaded
    const std::size_t width = cols - start < kThreadsPerRowBlock ? cols - start : kThreadsPerRowBlock;
    if (in_matrix) {
      for (std::size_t j = 0; j < width; ++j) sum += a[(start + j) * rows + row] * window[j];
    }
    __syncthreads();  // write after read: nobody reloads the window while others still read it
  }
  if (in_matrix) y[row] = alpha * sum + beta * y[row];
}

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream) {
  gemv_shared_x_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 4: a warp per row -----------------------------------------------------

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
  // Edit (1): my warp's number, from the global thread index (32-bit product: wraps at 2^32 threads).
  const std::size_t row = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
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
