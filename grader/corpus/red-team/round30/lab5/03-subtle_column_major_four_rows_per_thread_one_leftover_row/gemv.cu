// Red team 30, lab 5, file 03 (subtle): step 4 column-major, four neighbouring rows
// per thread, and a last thread that takes only one leftover row.
//
// What the student did (step 4 only; steps 1-3 are the reference's). fast_layout() is
// column_major (the header's second option, "the columns split among several threads
// per row"):
//   - scale_by_beta_kernel first: y[r] = beta * y[r], on the stream;
//   - then gemv_column_slices_kernel on a 2D grid: blockIdx.y picks a slice of 256
//     columns, and each thread takes four neighbouring rows (thread coarsening, as in
//     lab 4's step 6), keeps four sums in registers over the slice's columns, and
//     adds alpha times each to y with atomicAdd;
//   - a thread whose four rows would run past the last row handles "the leftover row"
//     (EDIT): the code takes for granted that rows % 4 is 0 or 1, which it is for
//     every odd size the student tried.
//
// Why it is a bug. When rows % 4 is 2 or 3, the last thread owns 2 or 3 rows and adds
// the products of only the first; the others keep beta * y. 1002 x 1000 is wrong.
//
// What the grader sees. Lab 5's shapes (labs/lab5_gemv/grading/grader.cpp:38-41) have
// rows 1, 1, 1000, 37, 1000, 129, 4097, 3000, 256, and 65537 past 32 bits, 20000 timed:
// every one is 0 or 1 mod 4 (and so is every cols: 1, 1000, 1, 1000, 37, 4097, 129,
// 3001, 2048, 65537, 20000). No lab 5 size is 2 or 3 mod 4 in either dimension.
//
// Speed (step4.speed, 20000 x 20000 column-major). 5000 threads per slice, 79 slices:
// 395,000 threads. A warp reads 1 KB of one column per step in four loads 32 bytes
// apart (each sector's other 24 bytes come from L1 on the next three loads), so DRAM
// reads A once; 1.6 M double atomics land in L2 spread over 20000 addresses. Probably
// within 1.25x of the reference's warp per row (medium).
//
// Predicted now: 100 (step4.speed: 90-100). Correct: step4.correct 0, 85 in all.
// Confidence: high on step4.correct (shapes read, bug deterministic).
// Otherwise: lab 5 reference solution: GEMV with shared memory, row- vs column-major.
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

// ---- Step 4: column slices, four rows per thread ---------------------------------------

// RED TEAM 30: column-major, y scaled by beta first, then every slice of columns adds
// alpha times its partial sums with atomicAdd.
constexpr int kSliceThreads = 128;
constexpr std::size_t kRowsPerThread = 4;
constexpr std::size_t kColumnsPerSlice = 256;
constexpr std::size_t kMostSlices = 65535;  // gridDim.y's limit

Layout fast_layout() { return Layout::column_major; }

__global__ void scale_by_beta_kernel(std::size_t rows, double beta, double* y) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; r < rows; r += stride) {
    y[r] *= beta;
  }
}

// Memory pattern: thread t of a warp reads rows 4t .. 4t + 3 of a column: the warp's
// four loads cover 128 neighbouring doubles (1 KB) of the column, every byte used.
__global__ void gemv_column_slices_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                          const double* x, double* y, std::size_t columns_per_slice) {
  const std::size_t first_row = kRowsPerThread * (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x);
  if (first_row >= rows) return;
  const std::size_t first_col = blockIdx.y * columns_per_slice;
  const std::size_t end_col = first_col + columns_per_slice < cols ? first_col + columns_per_slice : cols;
  if (first_row + kRowsPerThread <= rows) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (std::size_t c = first_col; c < end_col; ++c) {
      const double* column = a + c * rows + first_row;
      const double xc = x[c];
      s0 += column[0] * xc;
      s1 += column[1] * xc;
      s2 += column[2] * xc;
      s3 += column[3] * xc;
    }
    atomicAdd(&y[first_row], alpha * s0);
    atomicAdd(&y[first_row + 1], alpha * s1);
    atomicAdd(&y[first_row + 2], alpha * s2);
    atomicAdd(&y[first_row + 3], alpha * s3);
  } else {
    // RED TEAM 30 EDIT: the leftover row, when rows is not a multiple of 4.
    const std::size_t row = first_row;
    double sum = 0.0;
    for (std::size_t c = first_col; c < end_col; ++c) sum += a[c * rows + row] * x[c];
    atomicAdd(&y[row], alpha * sum);
  }
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  if (rows == 0) return;
  const unsigned int scale_blocks = blocks_for(rows < (std::size_t{1} << 28) ? rows : (std::size_t{1} << 28), 256);
  scale_by_beta_kernel<<<scale_blocks, 256, 0, stream>>>(rows, beta, y);
  MEMLAB_CHECK_LAUNCH();
  if (cols == 0) return;
  const std::size_t wanted = (cols + kColumnsPerSlice - 1) / kColumnsPerSlice;
  const std::size_t slices = wanted < kMostSlices ? wanted : kMostSlices;
  const std::size_t columns_per_slice = (cols + slices - 1) / slices;
  const std::size_t threads = (rows + kRowsPerThread - 1) / kRowsPerThread;
  const dim3 grid(blocks_for(threads, kSliceThreads), static_cast<unsigned int>(slices));
  gemv_column_slices_kernel<<<grid, kSliceThreads, 0, stream>>>(rows, cols, alpha, a, x, y, columns_per_slice);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
