#include "memlab/grading/cublas.hpp"

#include <stdexcept>
#include <string>

namespace memlab::grading {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(status));
  }
}

cublasHandle_t cublas_handle() {
  static const cublasHandle_t handle = [] {
    cublasHandle_t created = nullptr;
    check_cublas(cublasCreate(&created), "cublasCreate");
    check_cublas(cublasSetMathMode(created, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode(CUBLAS_PEDANTIC_MATH)");
    return created;
  }();
  return handle;
}

namespace {

cublasHandle_t handle_on(cudaStream_t stream) {
  const cublasHandle_t handle = cublas_handle();
  check_cublas(cublasSetStream(handle, stream), "cublasSetStream");
  return handle;
}

// One body for SGEMV and DGEMV. A row-major array is A^T to cuBLAS, so y = A x
// is the transposed product of it, with the leading dimension cols.
template <typename real, typename Gemv>
void gemv_with(Gemv cublas_gemv, const char* name, MatrixOrder order, std::size_t rows, std::size_t cols, real alpha,
               const real* a, const real* x, real beta, real* y, cudaStream_t stream) {
  const cublasHandle_t handle = handle_on(stream);
  const int m = static_cast<int>(rows);
  const int n = static_cast<int>(cols);
  check_cublas(order == MatrixOrder::row_major
                   ? cublas_gemv(handle, CUBLAS_OP_T, n, m, &alpha, a, n, x, 1, &beta, y, 1)
                   : cublas_gemv(handle, CUBLAS_OP_N, m, n, &alpha, a, m, x, 1, &beta, y, 1),
               name);
}

}  // namespace

void gemv(MatrixOrder order, std::size_t rows, std::size_t cols, float alpha, const float* a, const float* x,
          float beta, float* y, cudaStream_t stream) {
  gemv_with(cublasSgemv, "cublasSgemv", order, rows, cols, alpha, a, x, beta, y, stream);
}

void gemv(MatrixOrder order, std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
          double beta, double* y, cudaStream_t stream) {
  gemv_with(cublasDgemv, "cublasDgemv", order, rows, cols, alpha, a, x, beta, y, stream);
}

void matmul(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  // Row-major a, b, c are a^T, b^T, c^T to cuBLAS, and c^T = b^T a^T: passing b
  // first computes c in row-major order.
  const float one = 1.0f;
  const float zero = 0.0f;
  check_cublas(cublasSgemm(handle_on(stream), CUBLAS_OP_N, CUBLAS_OP_N, width, width, width, &one, b, width, a, width,
                           &zero, c, width),
               "cublasSgemm");
}

void to_column_major(const double* a, double* a_column_major, std::size_t rows, std::size_t cols,
                     cudaStream_t stream) {
  // To cuBLAS the row-major array is A^T (cols x rows, leading dimension cols);
  // its transpose, written with leading dimension rows, is A column-major.
  const double one = 1.0;
  const double zero = 0.0;
  const int m = static_cast<int>(rows);
  const int n = static_cast<int>(cols);
  check_cublas(cublasDgeam(handle_on(stream), CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, n, &zero, a_column_major, m,
                           a_column_major, m),
               "cublasDgeam (transposing A)");
}

}  // namespace memlab::grading
