// Lab 3: float vs double.
//
// Everything you write for this lab goes in this file. README.md beside it
// explains each step; lab3.cuh documents the functions below. No
// --use_fast_math here: this lab is about what each type's arithmetic does.
//
//   make lab3            build this file and check every step
//   make lab3 STEP=2     check steps 1 and 2 only

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>  // MEMLAB_CHECK(call), MEMLAB_CHECK_LAUNCH()
#include <memlab/launch.cuh>      // memlab::multiprocessor_count(): the number of SMs

namespace lab3 {

// ---- Step 1: one template, two types -------------------------------------

template <typename real>
__global__ void row_sums_kernel(const real* matrix, real* sums, std::size_t rows, std::size_t cols) {
  // TODO(step 1): coalesced row sums, as in lab 2 step 3, written once for any
  // element type `real`. The accumulator is a `real` too.
}

template <typename real>
void launch_row_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  // TODO(step 1): launch row_sums_kernel<real> on `stream` with enough threads
  // for every row, then MEMLAB_CHECK_LAUNCH().
}

// The two versions the grader calls: both are the template above.
void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

// ---- Step 2: compensated summation in float -------------------------------

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  // TODO(step 2): float row sums with Kahan's compensation: each thread keeps a
  // sum and a compensation (what rounding lost), and corrects each new term by
  // it. Write the kernel above this function and launch it here.
}

// ---- Step 3: a compute-bound kernel in both types --------------------------

template <typename real>
__global__ void polynomial_kernel(const real* x, real* y, std::size_t n) {
  // TODO(step 3): y[i] = the polynomial of lab3.cuh at x[i], by Horner: start
  // from 1, then kPolynomialDegree times value = value * x[i] + 1.
}

template <typename real>
void launch_polynomial(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  // TODO(step 3): launch polynomial_kernel<real> with enough threads for n elements.
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
