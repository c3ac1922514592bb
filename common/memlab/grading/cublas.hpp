/// @file cublas.hpp
/// @brief cuBLAS as a yardstick: what a user would call instead of writing the
/// kernel, measured in the same process on the same data (by the labs' graders
/// and by `make bench`).
///
/// The labs store matrices row-major; cuBLAS reads them column-major. A
/// row-major rows x cols array is, to cuBLAS, the column-major cols x rows
/// matrix A^T. The functions here take the labs' view and do that translation
/// in one place.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace memlab::grading {

/// The grader's cuBLAS handle, created on first use and kept until the process
/// ends. Its math mode is CUBLAS_PEDANTIC_MATH: full FP32 and FP64 arithmetic,
/// never TF32 tensor cores, which round inputs to 10-bit mantissas; the labs'
/// kernels do not, so neither may their yardstick. Throws std::runtime_error.
cublasHandle_t cublas_handle();

/// Throws std::runtime_error naming @p call and the status unless @p status is CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t status, const char* call);

/// How an array holds a matrix.
enum class MatrixOrder {
  row_major,    ///< element (r, c) of a rows x cols matrix at a[r * cols + c]
  column_major  ///< element (r, c) at a[c * rows + r]
};

/// y = alpha A x + beta y for the rows x cols matrix A held in @p order (SGEMV),
/// enqueued on @p stream. Throws std::runtime_error.
void gemv(MatrixOrder order, std::size_t rows, std::size_t cols, float alpha, const float* a, const float* x,
          float beta, float* y, cudaStream_t stream);
/// The same in double (DGEMV).
void gemv(MatrixOrder order, std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
          double beta, double* y, cudaStream_t stream);

/// c = a b for square row-major float matrices of side @p width, in full FP32
/// (SGEMM), enqueued on @p stream. Throws std::runtime_error.
void matmul(const float* a, const float* b, float* c, int width, cudaStream_t stream);

/// Writes the rows x cols row-major matrix @p a into @p a_column_major as the
/// same matrix held column-major (cublasDgeam transposing it), on @p stream.
void to_column_major(const double* a, double* a_column_major, std::size_t rows, std::size_t cols,
                     cudaStream_t stream);

}  // namespace memlab::grading
