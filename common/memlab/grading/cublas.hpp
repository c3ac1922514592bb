/// @file cublas.hpp
/// @brief cuBLAS as a grader's yardstick: what a user would call instead of
/// writing the kernel, measured in the same process on the same data.
#pragma once

#include <cublas_v2.h>

namespace memlab::grading {

/// The grader's cuBLAS handle, created on first use and kept until the process
/// ends. Its math mode is CUBLAS_PEDANTIC_MATH: full FP32 and FP64 arithmetic,
/// never TF32 tensor cores, which round inputs to 10-bit mantissas; the labs'
/// kernels do not, so neither may their yardstick. Throws std::runtime_error.
cublasHandle_t cublas_handle();

/// Throws std::runtime_error naming @p call and the status unless @p status is CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t status, const char* call);

}  // namespace memlab::grading
