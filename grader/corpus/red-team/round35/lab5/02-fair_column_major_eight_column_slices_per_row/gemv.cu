// Red team 35, lab 5, file 02 (fair: step 4 the header's other way, column-major with the columns
// split among several threads per row). The reference, except for gemv_fast and fast_layout():
// fast_layout() says column-major, and gemv_fast launches one kernel of 2D blocks, 32 rows x 8
// column slices: thread (x, y) of block b sums row 32 b + x over columns y, y + 8, y + 16, ...
// (so each warp, one slice, reads 32 consecutive rows of a column: 256 contiguous bytes), the 8
// partial sums of a row meet in shared memory, and slice 0 writes y = alpha * sum + beta * y.
// No atomics, no second kernel, nothing outside `stream`.
//
// Why it is fair: lab5.cuh, step 4: "a warp per row, or the columns split among several threads
// per row ... A laid out as fast_layout() says"; the grader's own hint (labs/lab5_gemv/grading/
// grader.cpp:200-201): "several threads per row, each taking a slice of the columns
// (column-major)". Every index is in std::size_t (c * rows + r past 2^32 elements).
//
// What is at risk: step4.speed (grader.cpp:198-222) times it on the column-major copy of the
// 20000 x 20000 matrix against the reference's warp per row on the row-major copy (2985 GB/s,
// 103% of the copy kernel on an H100: docs/measurements/lab4-5.md), at 1.25x. With 8 slices a row
// the GPU runs 160,000 threads, 1,212 per SM, each with 2,500 dependent-chain additions, against
// the reference's 640,000: fewer loads in flight per byte, and a column-major walk that moves 160 KB
// (a column) between a thread's consecutive loads. Step 2's note says one thread per row is far
// too few; whether 8 are enough to saturate DRAM is what this file measures. Correctness: kShapes
// and the 65537 x 65537 check in column-major (problem.hpp check(), problem.cpp:22-72).
//
// Edits to solutions/lab5_gemv/gemv.cu: (1) fast_layout() returns Layout::column_major; (2) a new
// kernel, gemv_column_slices_kernel; (3) gemv_fast launches it (the warp-per-row kernel is left
// in the file, unused).
//
// Predicted now: 100 if 8 slices saturate DRAM (ratio 1.0-1.2), else step4.speed in proportion
// (about 17 of 20 at 1.45x). Correct: 100. Confidence: medium (ratio not measured).

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

Layout fast_layout() { return Layout::column_major; }  // Edit (1)

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

// Edit (2). Memory pattern: the 32 threads of a warp share a column slice and take 32
// consecutive rows, so each load is 256 contiguous bytes of one column of A (coalesced), and
// x[c] is the same for the whole warp. A row's 8 slices add up in shared memory.
constexpr int kRowsPerBlock = 32;
constexpr int kSlices = 8;

__global__ void __launch_bounds__(kRowsPerBlock * kSlices)
    gemv_column_slices_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                              double beta, double* y) {
  __shared__ double partial[kSlices][kRowsPerBlock];
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kRowsPerBlock) + threadIdx.x;
  const unsigned int slice = threadIdx.y;
  double sum = 0.0;
  if (row < rows) {
    for (std::size_t c = slice; c < cols; c += kSlices) sum += a[c * rows + row] * x[c];
  }
  partial[slice][threadIdx.x] = sum;
  __syncthreads();  // every slice's partial sum written before slice 0 adds them
  if (slice == 0 && row < rows) {
    double total = 0.0;
    for (int s = 0; s < kSlices; ++s) total += partial[s][threadIdx.x];
    y[row] = alpha * total + beta * y[row];
  }
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  // Edit (3): 32 rows x 8 column slices per block.
  const dim3 block(kRowsPerBlock, kSlices);
  gemv_column_slices_kernel<<<blocks_for(rows, kRowsPerBlock), block, 0, stream>>>(rows, cols, alpha, a, x, beta,
                                                                                   y);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
