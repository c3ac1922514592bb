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

// FAIR VARIANT (red team 6): column-major A, the columns split among several
// threads per row (the header's second suggestion). A block is 32 rows x 8 column
// lanes; the grid's y dimension cuts the columns into chunks of kChunkCols. A warp
// reads 32 consecutive rows of one column (256 contiguous bytes). The 8 lanes'
// partial sums meet in shared memory, and each block adds alpha * its sum to y
// with atomicAdd, after a first kernel has scaled y by beta.
constexpr int kSplitRows = 32;
constexpr int kSplitLanes = 8;
constexpr std::size_t kChunkCols = 512;

Layout fast_layout() { return Layout::column_major; }

__global__ void scale_kernel(std::size_t rows, double beta, double* y) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (r < rows) y[r] *= beta;
}

__global__ void gemv_split_kernel(std::size_t rows, std::size_t cols, double alpha, const double* __restrict__ a,
                                  const double* __restrict__ x, double* y) {
  __shared__ double partial[kSplitLanes][kSplitRows];
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kSplitRows) + threadIdx.x;
  const std::size_t first = blockIdx.y * kChunkCols;
  const std::size_t last = first + kChunkCols < cols ? first + kChunkCols : cols;
  double sum = 0.0;
  if (row < rows) {
    for (std::size_t c = first + threadIdx.y; c < last; c += kSplitLanes) sum += a[c * rows + row] * x[c];
  }
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && row < rows) {
    double total = 0.0;
    for (int lane = 0; lane < kSplitLanes; ++lane) total += partial[lane][threadIdx.x];
    atomicAdd(&y[row], alpha * total);
  }
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  if (rows == 0) return;
  scale_kernel<<<static_cast<unsigned>((rows + 255) / 256), 256, 0, stream>>>(rows, beta, y);
  MEMLAB_CHECK_LAUNCH();
  if (cols == 0) return;
  const dim3 block(kSplitRows, kSplitLanes);
  const dim3 grid(static_cast<unsigned>((rows + kSplitRows - 1) / kSplitRows),
                  static_cast<unsigned>((cols + kChunkCols - 1) / kChunkCols));
  gemv_split_kernel<<<grid, block, 0, stream>>>(rows, cols, alpha, a, x, y);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
