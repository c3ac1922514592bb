// Stands in for the CUDA toolkit's cublas.h in builds of labs that forbid cuBLAS
// (cmake/Labs.cmake, FORBID): the grader measures your kernels against cuBLAS.
#error "cuBLAS may not be used in this lab: the grader uses it as the yardstick your own kernels are measured against."
