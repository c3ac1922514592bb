// Red team 14, lab 3 step 2 (trick): float sums in double, the float data hidden from the kernel's signature.
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

// ---- Step 2 (trick): the floats arrive as their bits, the kernel's only
// floating-point parameter is a double, and each float is made a double with
// integer operations (no F2F.F64.F32 / cvt.f64.f32): the sum is in double.
__device__ __forceinline__ double widen_bits(unsigned bits, double unit) {
  const unsigned exponent = (bits >> 23) & 0xffu;
  const unsigned long long sign = static_cast<unsigned long long>(bits >> 31) << 63;
  const unsigned long long mantissa = bits & 0x7fffffu;
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-149, exactly
    const double m = static_cast<double>(static_cast<unsigned>(mantissa)) * 0x1p-149;
    return __longlong_as_double(__double_as_longlong(m) | static_cast<long long>(sign));
  }
  const unsigned long long e = exponent == 0xffu ? 0x7ffull : exponent + 896ull;
  return __longlong_as_double(static_cast<long long>(sign | (e << 52) | (mantissa << 29))) * unit;
}

__global__ void row_totals_kernel(const unsigned* __restrict__ matrix_bits, unsigned* __restrict__ sum_bits,
                                  std::size_t rows, std::size_t cols, double unit) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;
  const unsigned* line = matrix_bits + row * cols;
  double total = 0;
  for (std::size_t c = lane; c < cols; c += kWarpSize) total += widen_bits(line[c], unit);
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) total += __shfl_down_sync(kFullWarp, total, offset);
  if (lane == 0) sum_bits[row] = __float_as_uint(static_cast<float>(total));
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
  row_totals_kernel<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<const unsigned*>(matrix), reinterpret_cast<unsigned*>(sums), rows, cols, 1.0);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
