/// @file lab5.cuh
/// @brief Lab 5, GEMV with shared memory, row- vs column-major: the functions
/// you write in gemv.cu, which the grader calls.
///
/// Read this file; do not edit it. Everything you write goes in gemv.cu. The
/// class grader (`make grade`) compiles your gemv.cu against the course's copy
/// of this header, so a change here would change what `make lab5` measures
/// but not your grade.
///
/// Each function launches its own kernels, from the thread that calls it: the
/// grader watches which kernels each call launches, and a launch from a thread
/// of your own fails the check that made the call.
///
/// Every array the grader passes starts an allocation of its own, aligned at least
/// as cudaMalloc aligns (256 bytes): a vector load (float4, double2) from an array's
/// start needs no alignment test. A row of a matrix is aligned only as far as
/// the matrix's width allows.
///
/// Every function computes y = alpha * A x + beta * y in double, for a matrix A
/// of rows x cols, x of cols elements and y of rows elements: y is read, then
/// overwritten. Where A is row-major, element (r, c) is a[r * cols + c]; where
/// it is column-major, a[c * rows + r]. Sizes are std::size_t: where the GPU
/// has the memory the grader checks every function on a matrix of more than
/// 2^32 elements (65537 x 65537) and on one of more than 2^27 rows
/// (134217761 x 2). Every function enqueues its work on
/// @p stream and returns without waiting, and writes y[0..rows-1] and nothing else.
/// @p stream is a non-blocking stream: work enqueued anywhere else (on the
/// default stream by cudaMemsetAsync or cudaMemcpyAsync without a stream, or by
/// a launch with none; on a stream of your own) is not ordered with it, and the
/// grader's correctness checks hold @p stream, the default stream and each
/// non-blocking stream your code made in earlier calls for a different time,
/// in an order that changes from call to call, so work that depends across
/// them comes out wrong there. They also hold a stream for longer still
/// right after each event recorded on it, so work that waits for an event
/// recorded before what it needs runs first.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

/// Lab 5, GEMV with shared memory, row- vs column-major: what the student writes and the grader calls (guide: \ref lab5).
namespace lab5 {

/// The signature of every GEMV in this lab.
using Gemv = void (*)(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                      double beta, double* y, cudaStream_t stream);

/// Step 1: one thread per row, A row-major.
void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                    double beta, double* y, cudaStream_t stream);

/// Step 2: one thread per row, A column-major.
void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream);

/// Step 3: one thread per row, A column-major, x read through a window in
/// shared memory that slides along it, one block's worth at a time. Correct
/// for any rows and cols, multiples of the block size or not.
void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream);

/// Step 4: how A is laid out for gemv_fast.
enum class Layout {
  row_major,    ///< a[r * cols + c]
  column_major  ///< a[c * rows + r]
};

/// Step 4: the layout your gemv_fast takes.
Layout fast_layout();

/// Step 4: a GEMV with enough threads to keep DRAM busy (a warp per row,
/// or the columns split among several threads per row), A laid out as
/// fast_layout() says. May launch several kernels.
void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream);

}  // namespace lab5
