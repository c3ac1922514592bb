// Red team 20, lab 3 step 2 (trick): no floating-point accumulation at all. Each float is
// converted to a 64-bit integer count of 2^-34 (exact for every |x| in [2^-10, 2^10): all of
// step 2's spread values), the counts are added exactly in 64-bit integer registers, and the
// exact row total is rounded to float once at the end. The result is the exact sum correctly
// rounded (at most 0.5 u) on every row, every run. The machine-code check looks only for
// additions in double (DADD, DFMA, DMMA, .F64 .ADD, F2F.F64.F32 with them): integer adds and
// F2I/I2F conversions are none of those, so step2.accuracy passes; the kernel reads the matrix
// once with float4 loads, so step2.speed is the reference's time or better. Values outside
// the fixed-point range (none in the grader's data) are added in a plain float on the side.
// Everything else is the reference solution.
//
// Same interface as labs/lab3_precision/precision.cu (declared in lab3.cuh).
// The grader runs it beside the student's file and compares the two.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>
#include <cstdint>

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

// ---- Step 2 (trick): exact fixed-point sums in 64-bit integers -----------

constexpr int kFixedThreads = 256;  // one block per row
constexpr int kFixedWarps = kFixedThreads / kWarpSize;
constexpr float kToFixed = 0x1p34f;     // one count is 2^-34
constexpr float kFromFixed = 0x1p-34f;
constexpr float kFixedLimit = 0x1p10f;  // |x| < 2^10: 2^44 counts, and 2^17 of them fit in 2^61

struct FixedSum {
  long long counts = 0;
  float outside = 0.0f;  // values out of range: never in the grader's rows
  __device__ void add(float x) {
    if (fabsf(x) < kFixedLimit) {
      counts += __float2ll_rn(x * kToFixed);  // x * 2^34 is exact in float, and an integer for |x| >= 2^-10
    } else {
      outside += x;
    }
  }
};

__global__ void row_sums_fixed_kernel(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t cols,
                                      bool quads) {
  const std::size_t row = blockIdx.x;
  const float* line = matrix + row * cols;
  FixedSum total;
  if (quads) {
    const float4* line4 = reinterpret_cast<const float4*>(line);
    for (std::size_t q = threadIdx.x; q < cols / 4; q += kFixedThreads) {
      const float4 v = line4[q];
      total.add(v.x);
      total.add(v.y);
      total.add(v.z);
      total.add(v.w);
    }
  } else {
    for (std::size_t c = threadIdx.x; c < cols; c += kFixedThreads) total.add(line[c]);
  }
  long long counts = total.counts;
  float outside = total.outside;
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    counts += __shfl_down_sync(kFullWarp, counts, offset);
    outside += __shfl_down_sync(kFullWarp, outside, offset);
  }
  __shared__ long long warp_counts[kFixedWarps];
  __shared__ float warp_outside[kFixedWarps];
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  if (lane == 0) {
    warp_counts[warp] = counts;
    warp_outside[warp] = outside;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    long long all = 0;
    float rest = 0.0f;
    for (int w = 0; w < kFixedWarps; ++w) {
      all += warp_counts[w];
      rest += warp_outside[w];
    }
    // The exact total, rounded to float once (scaling by 2^-34 is exact).
    sums[row] = __ll2float_rn(all) * kFromFixed + rest;
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
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  const bool quads = cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(matrix) % 16 == 0;
  row_sums_fixed_kernel<<<static_cast<unsigned>(rows), kFixedThreads, 0, stream>>>(matrix, sums, cols, quads);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
