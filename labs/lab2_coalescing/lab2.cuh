/// @file lab2.cuh
/// @brief Lab 2, memory coalescing with matrix row and column sums: the
/// functions you write in matrix_sums.cu, which the grader calls.
///
/// Read this file; do not edit it. Everything you write goes in matrix_sums.cu. The
/// class grader (`make grade`) compiles your matrix_sums.cu against the course's copy
/// of this header, so a change here would change what `make lab2` measures
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
/// Every matrix is row-major: element (r, c) of a rows x cols matrix is
/// matrix[r * cols + c], so a row is contiguous in memory and a column is
/// strided by cols elements. Sizes are element counts (std::size_t): where the
/// GPU has the memory the grader checks a matrix of more than 2^32 elements
/// (65537 x 65537), one of more than 2^27 rows (134217761 x 2; the column
/// sums of step 3: 67108897 x 8; step 1's column sums: not tall), and for
/// column sums two of more than 2^26 columns (2 x 67108897, 2 x 67108896). Every
/// function enqueues its work on @p stream and returns without waiting.
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

/// Lab 2, memory coalescing with matrix row and column sums: what the student writes and the grader calls (guide: \ref lab2).
namespace lab2 {

/// Step 1: sums[r] = sum of row r, for every r < rows; one thread per row.
/// Writes sums[0..rows-1] and nothing past it.
void row_sums_thread_per_row(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                             cudaStream_t stream);

/// Step 1: sums[c] = sum of column c, for every c < cols; one thread per column.
/// Writes sums[0..cols-1] and nothing past it.
void column_sums_thread_per_column(const float* matrix, float* sums, std::size_t rows,
                                   std::size_t cols, cudaStream_t stream);

/// Step 2: what the 32 threads of one warp load in one instruction, each a
/// 4-byte float. "base" is a multiple of 32, so a[base] starts a 128-byte line.
enum class Access {
  consecutive,        ///< thread t loads a[base + t]
  offset_by_two,      ///< thread t loads a[base + t - 2]
  same_address,       ///< every thread loads a[40]
  random,             ///< thread t loads a[r_t], r_t random in an array of 100 million floats
  row_per_thread,     ///< row_sums_thread_per_row: thread t loads matrix[(r0 + t) * cols + c], cols = 16384
  column_per_thread,  ///< column_sums_thread_per_column: thread t loads matrix[r * cols + c0 + t], c0 a multiple of 32
};

/// Step 2: how many different 32-byte sectors the warp's load touches for @p access.
int sectors_per_request(Access access);

/// Step 3: the same row sums as step 1, with coalesced loads and enough threads
/// to keep DRAM busy. May launch several kernels and use any number of threads.
void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream);

/// Step 3: the same column sums as step 1, with enough threads to keep DRAM
/// busy. May launch several kernels and use any number of threads.
void column_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                 cudaStream_t stream);

}  // namespace lab2
