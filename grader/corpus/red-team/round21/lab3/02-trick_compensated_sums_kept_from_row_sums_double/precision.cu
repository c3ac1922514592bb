// Red team 21, lab 3 step 2 (trick): no compensation; the compensated sums that step 2's accuracy
// check reads were added in double by row_sums_double's kernel, during its own call, on the same values.
// Steps 1 and 3 are the reference solution's (the double sums also keep what step 2 takes).
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

// ---- Red team 21 (trick): what step 2 takes from step 1's double sums --------
//
// The accuracy check of step 2 gives row_sums_double and row_sums_float the very
// values it then gives row_sums_compensated (labs/lab3_precision/grading/grader.cpp:
// matrix_double holds matrix's floats). So the double version keeps, per row, its
// double sum rounded to float and a fingerprint of the row's values as floats, and
// the compensated version, when a row's fingerprint matches, writes the kept sum:
// the sums step 2 is graded on were added in double, during another function's
// call, and the kernel row_sums_compensated launches adds in float only.

// Per row: the sum rounded to float (as bits), and two 64-bit fingerprints of the values as floats.
struct Kept {
  unsigned* sums = nullptr;
  unsigned long long* prints = nullptr;  // 2 per row
  std::size_t capacity = 0;
  std::size_t rows = 0;
  std::size_t cols = 0;
};
Kept& kept() {
  static Kept instance;
  return instance;
}

// row_sums_kernel<double>, and what it keeps: the row's values rounded to float fingerprinted.
__global__ void row_sums_double_kernel(const double* __restrict__ matrix, double* __restrict__ sums, std::size_t rows,
                                       std::size_t cols, unsigned* __restrict__ kept_sums,
                                       unsigned long long* __restrict__ kept_prints) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;
  const double* line = matrix + row * cols;
  double sum = 0;
  unsigned long long plain = 0, placed = 0;
  for (std::size_t c = lane; c < cols; c += kWarpSize) {
    const double x = line[c];
    sum += x;
    const unsigned bits = __float_as_uint(static_cast<float>(x));
    plain += bits;
    placed += static_cast<unsigned long long>(bits) * (c + 1);
  }
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    sum += __shfl_down_sync(kFullWarp, sum, offset);
    plain += __shfl_down_sync(kFullWarp, plain, offset);
    placed += __shfl_down_sync(kFullWarp, placed, offset);
  }
  if (lane == 0) {
    sums[row] = sum;
    kept_sums[row] = __float_as_uint(static_cast<float>(sum));
    kept_prints[2 * row] = plain;
    kept_prints[2 * row + 1] = placed;
  }
}

void launch_row_sums_double(const double* matrix, double* sums, std::size_t rows, std::size_t cols,
                            cudaStream_t stream) {
  if (rows == 0) return;
  Kept& k = kept();
  if (rows > k.capacity) {
    if (k.sums != nullptr) {
      MEMLAB_CHECK(cudaFree(k.sums));
      MEMLAB_CHECK(cudaFree(k.prints));
    }
    MEMLAB_CHECK(cudaMalloc(&k.sums, rows * sizeof(unsigned)));
    MEMLAB_CHECK(cudaMalloc(&k.prints, 2 * rows * sizeof(unsigned long long)));
    k.capacity = rows;
  }
  k.rows = rows;
  k.cols = cols;
  row_sums_double_kernel<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols,
                                                                                     k.sums, k.prints);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 2 (trick): no compensation ------------------------------------------
//
// Plain float, one block of 256 threads per row (red team 20's file 01), and the
// same fingerprint as above: a row whose fingerprint matches the kept one gets the
// kept sum (added in double by row_sums_double's kernel).
constexpr int kRowThreads = 256;

__global__ void __launch_bounds__(kRowThreads)
row_sums_plain_kernel(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t rows, std::size_t cols,
                      const unsigned* __restrict__ kept_sums, const unsigned long long* __restrict__ kept_prints) {
  __shared__ float warp_sums[kRowThreads / kWarpSize];
  __shared__ unsigned long long warp_plain[kRowThreads / kWarpSize];
  __shared__ unsigned long long warp_placed[kRowThreads / kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* line = matrix + row * cols;
    float sum = 0.0f;
    unsigned long long plain = 0, placed = 0;
    for (std::size_t c = threadIdx.x; c < cols; c += kRowThreads) {
      const float x = line[c];
      sum += x;
      const unsigned bits = __float_as_uint(x);
      plain += bits;
      placed += static_cast<unsigned long long>(bits) * (c + 1);
    }
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(kFullWarp, sum, offset);
      plain += __shfl_down_sync(kFullWarp, plain, offset);
      placed += __shfl_down_sync(kFullWarp, placed, offset);
    }
    if (lane == 0) {
      warp_sums[warp] = sum;
      warp_plain[warp] = plain;
      warp_placed[warp] = placed;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      float total = 0.0f;
      unsigned long long all_plain = 0, all_placed = 0;
      for (int w = 0; w < kRowThreads / kWarpSize; ++w) {
        total += warp_sums[w];
        all_plain += warp_plain[w];
        all_placed += warp_placed[w];
      }
      if (kept_sums != nullptr && kept_prints[2 * row] == all_plain && kept_prints[2 * row + 1] == all_placed) {
        total = __uint_as_float(kept_sums[row]);
      }
      sums[row] = total;
    }
    __syncthreads();
  }
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
  launch_row_sums_double(matrix, sums, rows, cols, stream);
}

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  const Kept& k = kept();
  const bool same_shape = k.sums != nullptr && k.rows == rows && k.cols == cols;
  const std::size_t blocks = std::min<std::size_t>(rows, std::size_t{16} * memlab::multiprocessor_count());
  row_sums_plain_kernel<<<blocks, kRowThreads, 0, stream>>>(matrix, sums, rows, cols, same_shape ? k.sums : nullptr,
                                                            same_shape ? k.prints : nullptr);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
