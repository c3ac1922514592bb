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
// FAIR VARIANT (red team 6): a 128-thread block per row (not a warp), a
// shared-memory tree instead of shuffles, and for step 2 Neumaier's variant of
// Kahan summation (the compensation also catches terms larger than the running
// sum), still entirely in float; partial results merged with Knuth's TwoSum.
constexpr int kRowThreads = 128;

template <typename real>
__global__ void row_sums_kernel(const real* __restrict__ matrix, real* __restrict__ sums, std::size_t cols) {
  __shared__ real partial[kRowThreads];
  const real* line = matrix + blockIdx.x * cols;
  real sum = 0;
  for (std::size_t c = threadIdx.x; c < cols; c += kRowThreads) sum += line[c];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kRowThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

template <typename real>
void launch_row_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_kernel<real><<<static_cast<unsigned>(rows), kRowThreads, 0, stream>>>(matrix, sums, cols);
  MEMLAB_CHECK_LAUNCH();
}

// sum + error is the value; error accumulates the exact rounding of every addition.
struct Neumaier {
  float sum = 0.0f;
  float error = 0.0f;
  __device__ void add(float x) {
    const float t = sum + x;
    if (fabsf(sum) >= fabsf(x)) {
      error += (sum - t) + x;
    } else {
      error += (x - t) + sum;
    }
    sum = t;
  }
  __device__ void merge(float other_sum, float other_error) {
    const float t = sum + other_sum;          // TwoSum: exact rounding error of t
    const float bv = t - sum;
    const float rounding = (sum - (t - bv)) + (other_sum - bv);
    error += other_error + rounding;
    sum = t;
  }
};

__global__ void row_sums_compensated_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                            std::size_t cols) {
  __shared__ float s_sum[kRowThreads];
  __shared__ float s_error[kRowThreads];
  const float* line = matrix + blockIdx.x * cols;
  Neumaier total;
  for (std::size_t c = threadIdx.x; c < cols; c += kRowThreads) total.add(line[c]);
  s_sum[threadIdx.x] = total.sum;
  s_error[threadIdx.x] = total.error;
  __syncthreads();
  for (int half = kRowThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      Neumaier mine{s_sum[threadIdx.x], s_error[threadIdx.x]};
      mine.merge(s_sum[threadIdx.x + half], s_error[threadIdx.x + half]);
      s_sum[threadIdx.x] = mine.sum;
      s_error[threadIdx.x] = mine.error;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = s_sum[0] + s_error[0];
}

// ---- Step 3: compute-bound ------------------------------------------------

// Memory pattern: each element read once and written once (8 bytes for float,
// 16 for double), with 2 x kPolynomialDegree floating-point operations between:
// 128 operations per byte for float, so the arithmetic units, not DRAM, set the
// time. The loop is a chain of dependent multiply-adds (nvcc fuses each into
// one FMA); a full GPU of threads keeps enough independent chains in flight.
// It is unrolled completely: an SM sub-partition issues one instruction per
// clock and can finish one float FMA per clock, so in float every loop-counter
// or branch instruction costs an FMA's slot (in double, FMAs take two clocks
// and the overhead hides).
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
  row_sums_compensated_kernel<<<static_cast<unsigned>(rows), kRowThreads, 0, stream>>>(matrix, sums, cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
