// Red team 35, lab 5, file 03 (fair: step 4 as a warp per row that reads x through step 3's
// shared-memory window). The reference, except that gemv_warp_per_row_kernel stages x in a
// __shared__ window of 256 doubles, one block's worth at a time (each of the block's 256 threads
// loads one element, two barriers per window), and its 8 warps read their rows' elements against
// the window: the student who carries step 3's lesson into step 4 ("x is read by every warp of
// the block: stage it once").
//
// Why it is fair: lab5.cuh step 4 ("a warp per row ... A laid out as fast_layout() says. May
// launch several kernels"): a warp per row, coalesced row-major loads, shuffles; x is read
// correctly whichever way. Threads past the last row still load their element of the window and
// reach both barriers (lab 5's step 3 hint), and the warp of a row past the end skips only its
// arithmetic and its shuffles, as a whole warp.
//
// What is at risk: step4.speed (labs/lab5_gemv/grading/grader.cpp:198-222, 1.25x against the
// reference's 2985 GB/s at 20000 x 20000 on an H100). Each window gives each lane 8 loads of A
// before the barrier, so every 2 KB of a row costs at least one DRAM latency per block in the
// barrier, where the reference's warps stream their rows independently. 8 blocks resident per SM
// should hide it (2,500 blocks in 2.4 waves); the step 3 note's own figure (x in shared memory
// 0.924x the time of step 2) is for one thread per row, not for a kernel at DRAM speed. Correctness
// is step 3's window logic, kShapes and 65537 x 65537 in row-major.
//
// Edits to solutions/lab5_gemv/gemv.cu: (1) in gemv_warp_per_row_kernel, a __shared__ window of
// kWindow = 256 doubles loaded by the whole block per window, two __syncthreads() per window, the
// early return replaced by a per-warp flag.
//
// Predicted now: 100 (ratio 1.0-1.2), else step4.speed in proportion. Correct: 100.
// Confidence: medium.

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
  // Edit (1): x through a window in shared memory, one block's worth (256 doubles) at a time.
  constexpr int kWindow = kWarpsPerBlock * kWarpSize;
  __shared__ double window[kWindow];
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  const unsigned int lane = threadIdx.x % kWarpSize;
  const bool in_matrix = row < rows;  // the same for the whole warp; every thread still loads and waits
  const double* line = a + (in_matrix ? row : 0) * cols;
  double sum = 0.0;
  for (std::size_t start = 0; start < cols; start += kWindow) {
    const std::size_t c = start + threadIdx.x;
    window[threadIdx.x] = c < cols ? x[c] : 0.0;
    __syncthreads();  // read after write: the whole window is loaded
    const std::size_t width = cols - start < kWindow ? cols - start : kWindow;
    if (in_matrix) {
      for (std::size_t j = lane; j < width; j += kWarpSize) sum += line[start + j] * window[j];
    }
    __syncthreads();  // write after read: nobody reloads the window while others still read it
  }
  if (!in_matrix) return;  // the whole warp leaves together: the shuffles below need all 32 lanes
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
