// Red team 36, lab 5, file 01 (subtle: the fast GEMV's row index wraps at 2^29 rows, past the
// tall check's 2^27 + 33). The reference, except that gemv_fast gives each row EIGHT threads (four
// rows a warp: lab5.cuh's "the columns split among several threads per row", a common choice for
// narrow rows) and finds a group's row from the global thread number in 32 bits,
//   const unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x; row = thread / 8;
// round 35's file 01 with 8 threads per row instead of 32. The thread number wraps once the grid
// has 2^32 threads, 8 x rows: at rows >= 2^29 = 536,870,912 the last blocks recompute rows 0, 1, ...
// (racing with the first blocks on y) and rows from 2^29 on are never written. A 536,870,913 x 1
// GEMV is 4.3 GB of A and 4.3 GB of y: legal (lab5.cuh: std::size_t sizes).
//
// Why no check sees it. Session 21's tall shape, grading::kTall = 134217761 x 2
// (common/memlab/grading/grader.hpp:103, common/memlab/by_gpu.hpp:50 kTallRows = 2^27 + 33;
// labs/lab5_gemv/grading/problem.cpp:86-90), is sized for a warp per row: 32 threads a row wrap at
// 2^27 rows, 8 threads a row at 2^29, 4 at 2^30, one at 2^32. Here the tall GEMV runs 2^30 + 264
// threads: no wrap. (2^28 + 33) x 1 (A and y 2.1 GB each, against 3.2 GB now) would reach 16
// threads a row; (2^29 + 33) x 1 (8.6 GB) reaches this file.
// Speed at 20000 x 20000: each group of 8 lanes reads 64 contiguous bytes of its row per step, a
// warp 4 rows; 5000 warps in one wave: about the reference's time (not measured).
//
// Edits to solutions/lab5_gemv/gemv.cu: (1) gemv_lanes_per_row_kernel, eight threads per row,
// reduced with width-8 shuffles; (2) its row from a 32-bit global thread number; (3) gemv_fast
// launches ceil(rows / 32) blocks of 256 threads.
//
// Predicted now: 100 (step4.speed: ratio about 1-1.2, else part of its 20 points).
// Correct: step4.correct 0 (85): wrong for matrices the header allows, the bug the tall check was
// added for, with another number of threads per row.
// Confidence: high (prediction of step4.correct); medium (speed); high (verdict).

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
// Edit (1): eight threads per row ("the columns split among several threads per row", lab5.cuh),
// four rows per warp; the group's row from the global thread index, as most CUDA code finds it.
constexpr unsigned int kLanesPerRow = 8;

__global__ void gemv_lanes_per_row_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                          const double* x, double beta, double* y) {
  const unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x;  // Edit (2): a 32-bit thread number
  const std::size_t row = thread / kLanesPerRow;
  const unsigned int lane = threadIdx.x % kLanesPerRow;
  const bool in_matrix = row < rows;  // no early return: every lane of the warp reaches the shuffles
  double sum = 0.0;
  if (in_matrix) {
    const double* line = a + row * cols;
    for (std::size_t c = lane; c < cols; c += kLanesPerRow) sum += line[c] * x[c];
  }
  for (unsigned int offset = kLanesPerRow / 2; offset > 0; offset /= 2) {
    sum += __shfl_down_sync(kFullWarp, sum, offset, kLanesPerRow);
  }
  if (in_matrix && lane == 0) y[row] = alpha * sum + beta * y[row];
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  // Edit (3): eight threads per row, 256 threads (32 rows) a block.
  constexpr int kRowsPerBlock = kWarpsPerBlock * kWarpSize / kLanesPerRow;
  gemv_lanes_per_row_kernel<<<blocks_for(rows, kRowsPerBlock), kWarpsPerBlock * kWarpSize, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
