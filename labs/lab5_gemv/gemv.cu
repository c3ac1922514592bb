// Lab 5: GEMV with shared memory, row- vs column-major.
//
// Everything you write for this lab goes in this file. README.md beside it
// explains each step; lab5.cuh documents the functions below. cuBLAS is not
// allowed here: the grader measures your kernels against it.
//
//   make lab5            build this file and check every step
//   make lab5 STEP=2     check steps 1 and 2 only
//   make lab5-sanitize   look for races in your shared-memory kernel (step 3)

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>  // MEMLAB_CHECK(call), MEMLAB_CHECK_LAUNCH()

namespace lab5 {

// ---- Step 1: one thread per row, row-major ----------------------------------

__global__ void gemv_row_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                      const double* x, double beta, double* y) {
  // TODO(step 1): thread `row` adds up a[row * cols + c] * x[c] over c, then
  // y[row] = alpha * sum + beta * y[row]. Threads past the last row do nothing.
}

void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                    double beta, double* y, cudaStream_t stream) {
  // TODO(step 1): blocks of 128 threads, enough for every row; MEMLAB_CHECK_LAUNCH().
}

// ---- Step 2: one thread per row, column-major ---------------------------------

void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream) {
  // TODO(step 2): step 1 with element (r, c) at a[c * rows + r]. Write the
  // kernel above this function and launch it here.
}

// ---- Step 3: x through a window in shared memory --------------------------------

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream) {
  // TODO(step 3): step 2's kernel, with x read through a __shared__ window of
  // one block's width: every thread loads one element of x into the window,
  // __syncthreads(), the threads use the window, __syncthreads(), slide on.
  // Every thread of the block reaches every barrier, past the last row or not.
}

// ---- Step 4: enough threads -------------------------------------------------------

Layout fast_layout() {
  // TODO(step 4): the layout your gemv_fast takes.
  return Layout::row_major;
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  // TODO(step 4): a warp per row (row-major, lanes take every 32nd column,
  // __shfl_down_sync adds their sums), or several threads per row each taking
  // a slice of the columns (column-major).
}

}  // namespace lab5
