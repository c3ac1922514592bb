/// @file lab3.cuh
/// @brief Lab 3, float vs double: the functions you write in precision.cu,
/// which the grader calls.
///
/// Read this file; do not edit it. Everything you write goes in precision.cu. The
/// class grader (`make grade`) compiles your precision.cu against the course's copy
/// of this header, so a change here would change what `make lab3` measures
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
/// Matrices are row-major (element (r, c) is matrix[r * cols + c]); sizes are
/// element counts (std::size_t: a matrix of more than 2^32 elements, or more than
/// 2^32 polynomial inputs, must work; where the GPU has the memory the grader
/// checks matrices and the polynomial past 2^32 elements, and a matrix of
/// more than 2^27 rows, 134217761 x 2; the double polynomial past 2^31 where
/// 69 GB is lacking). Every function enqueues its work on @p stream and returns
/// without waiting. Each step comes in a float and a double version with the
/// same name: write one template over the element type `real` and let both
/// call it.
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

/// Lab 3, float vs double: what the student writes and the grader calls (guide: \ref lab3).
namespace lab3 {

/// Step 1: sums[r] = sum of row r, for every r < rows, added up in the
/// matrix's own type: float in float, double in double.
void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream);
/// Step 1: the double version.
void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream);

/// Step 2: the same float row sums, still accumulated in float, but with
/// compensated (Kahan) summation, so that the result is as accurate as if
/// every addition were exact and only the final result were rounded, give or take
/// a few units in the last place.
void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream);

/// Step 3: how many times the polynomial's Horner loop runs per element.
constexpr int kPolynomialDegree = 512;

/// Step 3: y[i] = 1 + x + x^2 + ... + x^kPolynomialDegree for every i < n,
/// evaluated in Horner's form (start from 1, then kPolynomialDegree times
/// y = y * x + 1) in float: 2 x kPolynomialDegree floating-point operations per
/// 8 bytes moved.
void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream);
/// Step 3: the double version (2 x kPolynomialDegree operations per 16 bytes).
void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream);

}  // namespace lab3
