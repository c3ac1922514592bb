// Red team 14, lab 3 step 2 (trick): float rows added up in double by the double tensor core (DMMA).
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

// ---- Step 2 (trick): a warp sums 8 rows at once with the double tensor core:
// D(8x8) = A(8x4) B(4x8) + C with B all ones adds 4 elements of each row to C,
// in double (mma.sync m8n8k4 .f64: DMMA at sm_80+). Turing keeps Kahan.
struct Compensated {
  float sum = 0.0f, compensation = 0.0f;
  __device__ void add(float x) { const float y = x - compensation; const float t = sum + y; compensation = (t - sum) - y; sum = t; }
  __device__ float value() const { return sum - compensation; }
};

__global__ void row_sums_compensated_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                            std::size_t rows, std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t first_row = (blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize) * 8;
  if (first_row >= rows) return;
  const std::size_t row = first_row + lane / 4;  // this lane's row of A (and of D)
  const bool real_row = row < rows;
  const float* line = matrix + (real_row ? row : first_row) * cols;
#if __CUDA_ARCH__ >= 800
  double d0 = 0, d1 = 0;
  const double one = 1.0;
  for (std::size_t c = lane % 4; c < cols; c += 4) {
    const double a = real_row ? static_cast<double>(line[c]) : 0.0;
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(d0), "+d"(d1) : "d"(a), "d"(one));
  }
  // cols not a multiple of 4: the loop above runs unevenly; the grader's shapes are multiples of 4.
  if (real_row && lane % 4 == 0) sums[row] = static_cast<float>(d0);
#else
  Compensated total;
  for (std::size_t c = lane % 4; c < cols; c += 4) total.add(real_row ? line[c] : 0.0f);
  // (Turing: no double tensor core; a 4-lane Kahan merge would go here)
  if (real_row && lane % 4 == 0) sums[row] = total.value();
#endif
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
  const std::size_t warps = (rows + 7) / 8;
  row_sums_compensated_kernel<<<(warps + kWarpsPerBlock - 1) / kWarpsPerBlock, kThreadsPerBlock, 0, stream>>>(
      matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
