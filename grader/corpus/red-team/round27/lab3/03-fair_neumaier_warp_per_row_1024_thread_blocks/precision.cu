// Red team 27, lab 3, file 03 (fair, one speed risk): the guide's warp per row
// for step 1 and step 2, but in blocks of 1024 threads (32 rows per block).
// Step 2 uses Neumaier's variant of Kahan in every lane (the branch on the
// larger magnitude, fabsf in float), and the lanes are merged with a two-sum on
// the shuffles, the Neumaier terms added along.
//
// What a student did and why: "1024 threads per block is the most a block can
// have, so the fewest blocks"; the guide's block size is not a rule.
//
// Expected: 100, moderately sure; the risk is step2.speed.
//  - step2.accuracy: Neumaier in every lane, exact merges: ~1 u. Float only
//    (fabsf, FADD; no double literal: 0.0f).
//  - step1.speed: 16384 rows are 512 blocks, 2 per SM: 1.94 waves, as the
//    reference's 2048 blocks of 256 (lab2-3.md, "whole waves").
//  - step2.speed: the timed matrix has 2048 rows (README step 2; spread_rows.hpp),
//    so 64 blocks: 64 of 132 SMs hold 32 warps each, 68 SMs idle. The same 2048
//    warps are in flight as in the reference's 256 blocks of 256, spread over
//    every SM, so Little's law gives the same bandwidth unless an SM's own limits
//    (outstanding misses of its L1) cap it at about twice the per-SM share. Not
//    measured (no GPU); lab 5's warp-per-row GEMV kept 94% of peak with 32
//    warps per SM on every SM (lab 5 README, block sizes). Predicted 1.0-1.3x:
//    10 or a little less of step 2's 10 speed points.
//  - step3: 512-thread blocks, fully unrolled.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

namespace lab3 {

namespace {

constexpr unsigned kBlockThreads = 1024;
constexpr unsigned kWarpSize = 32;
constexpr unsigned kWarpsPerBlock = kBlockThreads / kWarpSize;
constexpr unsigned kMask = 0xffffffffu;

unsigned blocks_for_rows(std::size_t rows) { return static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock); }

}  // namespace

template <typename real>
__global__ void row_sums_kernel(const real* matrix, real* sums, std::size_t rows, std::size_t cols) {
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / kWarpSize;
  const unsigned lane = threadIdx.x % kWarpSize;
  if (row >= rows) return;
  real acc = 0;
  for (std::size_t col = lane; col < cols; col += kWarpSize) acc += matrix[row * cols + col];
#pragma unroll
  for (unsigned shift = kWarpSize / 2; shift > 0; shift >>= 1) acc += __shfl_down_sync(kMask, acc, shift);
  if (lane == 0) sums[row] = acc;
}

template <typename real>
void launch_row_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_kernel<real><<<blocks_for_rows(rows), kBlockThreads, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

// Neumaier: sum + c is the running total; c gathers what each addition rounded off.
__global__ void neumaier_rows_kernel(const float* matrix, float* sums, std::size_t rows, std::size_t cols) {
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / kWarpSize;
  const unsigned lane = threadIdx.x % kWarpSize;
  if (row >= rows) return;
  const float* line = matrix + row * cols;
  float sum = 0.0f;
  float c = 0.0f;
  for (std::size_t col = lane; col < cols; col += kWarpSize) {
    const float x = line[col];
    const float t = sum + x;
    if (fabsf(sum) >= fabsf(x)) {
      c += (sum - t) + x;  // x's low bits were lost
    } else {
      c += (x - t) + sum;  // sum's low bits were lost
    }
    sum = t;
  }
#pragma unroll
  for (unsigned shift = kWarpSize / 2; shift > 0; shift >>= 1) {
    const float other = __shfl_down_sync(kMask, sum, shift);
    const float other_c = __shfl_down_sync(kMask, c, shift);
    const float t = sum + other;
    const float other_part = t - sum;
    const float error = (sum - (t - other_part)) + (other - other_part);  // t + error == sum + other
    c += other_c + error;
    sum = t;
  }
  if (lane == 0) sums[row] = sum + c;
}

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  neumaier_rows_kernel<<<blocks_for_rows(rows), kBlockThreads, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

template <typename real>
__global__ void polynomial_kernel(const real* x, real* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const real v = x[i];
  real horner = 1;
#pragma unroll
  for (int step = 0; step < kPolynomialDegree; ++step) horner = horner * v + 1;
  y[i] = horner;
}

template <typename real>
void launch_polynomial(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  constexpr unsigned kThreads = 512;
  polynomial_kernel<real><<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, y, n);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
