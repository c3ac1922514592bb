// Red team 13, file 04: the compensated kernel is extern "C" (no signature to read) and sums in
// double after widening with integer conversions. Step 2 must fail.
// Red team 12, lab 3, pass-should-fail: step 2 ("compensated sums in float") done by
// accumulating in double, with each float widened to double WITHOUT an F2F.F64.F32:
// the float's bits are split into an integer mantissa (I2F.F64, exact) and a power of two
// built from integer bits (DMUL by 2^k, exact). The kernel has DADD/DMUL but no
// F2F.F64.F32, so computes_on_floats_in_double() is false.
// Lab 3 reference solution: float vs double.
//
// Same interface as labs/lab3_precision/precision.cu (declared in lab3.cuh).
// The grader runs it beside the student's file and compares the two.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>

namespace lab3 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;
constexpr unsigned kFullWarp = 0xffffffffu;

std::size_t warp_per_row_blocks(std::size_t rows) { return (rows + kWarpsPerBlock - 1) / kWarpsPerBlock; }

// ---- Step 1: one template, two types -------------------------------------

// Memory pattern: one warp per row, lane l reading columns l, l + 32, ...: each
// load is 32 neighbouring elements, 128 bytes for float and 256 for double, so
// the double kernel moves exactly twice the bytes in the same number of loads.
// The accumulator has the matrix's type: a float accumulator in the double
// kernel would throw away 29 of double's 53 bits at every addition.
template <typename real>
__global__ void row_sums_kernel(const real* __restrict__ matrix, real* __restrict__ sums, std::size_t rows,
                                std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;  // the whole warp leaves together: the shuffles need all 32 lanes
  const real* line = matrix + row * cols;
  real sum = 0;
  for (std::size_t c = lane; c < cols; c += kWarpSize) sum += line[c];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
  if (lane == 0) sums[row] = sum;
}

template <typename real>
void launch_row_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_kernel<real><<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 2: "compensated" (really: double) --------------------------------

// Exactly (double)x for every finite float, with no float-to-double conversion instruction.
__device__ __forceinline__ double widen(float x) {
  const unsigned bits = __float_as_uint(x);
  int exponent = (bits >> 23) & 0xff;
  int mantissa = bits & 0x7fffff;
  if (exponent != 0) mantissa |= 0x800000; else exponent = 1;   // denormals: 0.m x 2^-126
  if (bits >> 31) mantissa = -mantissa;
  const double scale = __hiloint2double((exponent - 150 + 1023) << 20, 0);  // 2^(exponent - 150)
  return static_cast<double>(mantissa) * scale;                             // I2F.F64 + DMUL, both exact
}

}  // namespace
}  // namespace lab3

// extern "C": the kernel's name carries no signature, so the grader falls back to
// "arithmetic and F2F.F64.F32", and this kernel widens without F2F.
extern "C" __global__ void row_sums_compensated_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                                       std::size_t rows, std::size_t cols) {
  using namespace lab3;
  constexpr int kWarpSize = 32, kWarpsPerBlock = 8;
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;
  const float* line = matrix + row * cols;
  double total = 0;
  for (std::size_t c = lane; c < cols; c += kWarpSize) total += lab3::widen(line[c]);
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
  if (lane == 0) sums[row] = static_cast<float>(total);
}

namespace lab3 {
namespace {

template <typename real>
__global__ void polynomial_kernel(const real* __restrict__ x, real* __restrict__ y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const real xi = x[i];
    real value = 1;
#pragma unroll
    for (int k = 0; k < kPolynomialDegree; ++k) value = value * xi + real(1);
    y[i] = value;
  }
}

template <typename real>
void launch_polynomial(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Enough blocks for every SM's full share of threads, never more than n needs.
  const std::size_t blocks = std::min<std::size_t>((n + kThreadsPerBlock - 1) / kThreadsPerBlock,
                                                   std::size_t{8} * memlab::multiprocessor_count());
  polynomial_kernel<real><<<blocks, kThreadsPerBlock, 0, stream>>>(x, y, n);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_compensated_kernel<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows,
                                                                                          cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
