// Red team 12, lab 3, pass-should-fail: step 2 accumulates in double, but the float-to-double
// conversion (F2F.F64.F32) and the double arithmetic (DADD) are in DIFFERENT kernels, and
// computes_on_floats_in_double() wants both in the same one. widen_kernel only converts
// (a float stored as a double: no arithmetic), accumulate_kernel only adds doubles.
// Column chunks through a fixed 64 MiB scratch, so any matrix size works.
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

// ---- Step 2: "compensated" (really: double, split over kernels) -------------

constexpr std::size_t kScratchDoubles = std::size_t{8} << 20;  // 64 MiB

// Converts matrix[r][c0 .. c0 + width) to double: F2F.F64.F32 and stores, no arithmetic in double.
__global__ void widen_kernel(const float* __restrict__ matrix, double* __restrict__ out, std::size_t rows,
                             std::size_t cols, std::size_t c0, std::size_t width) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < rows * width;
       i += stride) {
    const std::size_t r = i / width, c = i % width;
    out[i] = matrix[r * cols + c0 + c];
  }
}

// Adds each row of a double chunk into a double total: DADD only, no conversion from float.
__global__ void accumulate_kernel(const double* __restrict__ chunk, double* __restrict__ totals, std::size_t rows,
                                  std::size_t width) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;
  double sum = 0;
  for (std::size_t c = lane; c < width; c += kWarpSize) sum += chunk[row * width + c];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
  if (lane == 0) totals[row] += sum;
}

__global__ void narrow_kernel(const double* __restrict__ totals, float* __restrict__ sums, std::size_t rows) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (r < rows) sums[r] = static_cast<float>(totals[r]);  // F2F.F32.F64: not the flagged direction
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
  double* totals = nullptr;
  double* chunk = nullptr;
  MEMLAB_CHECK(cudaMallocAsync(&totals, rows * sizeof(double), stream));
  MEMLAB_CHECK(cudaMemsetAsync(totals, 0, rows * sizeof(double), stream));
  const std::size_t width = std::max<std::size_t>(1, std::min(cols, kScratchDoubles / rows));
  MEMLAB_CHECK(cudaMallocAsync(&chunk, rows * width * sizeof(double), stream));
  for (std::size_t c0 = 0; c0 < cols; c0 += width) {
    const std::size_t w = std::min(width, cols - c0);
    widen_kernel<<<1024, kThreadsPerBlock, 0, stream>>>(matrix, chunk, rows, cols, c0, w);
    accumulate_kernel<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(chunk, totals, rows, w);
  }
  narrow_kernel<<<(rows + kThreadsPerBlock - 1) / kThreadsPerBlock, kThreadsPerBlock, 0, stream>>>(totals, sums, rows);
  MEMLAB_CHECK_LAUNCH();
  MEMLAB_CHECK(cudaFreeAsync(chunk, stream));
  MEMLAB_CHECK(cudaFreeAsync(totals, stream));
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
