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

}  // namespace memlab::grading
