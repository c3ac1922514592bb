// Red team 15, file 03: floats widened into a __device__ double buffer by a float-only kernel, added
// up by step 1's honest double kernel, narrowed by another: no kernel takes floats and doubles.
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

// ---- Step 2 ---------------------------------------------------------------

// (Red team 15, file 03.) No compensation: the floats are summed in double by
// step 1's own row_sums_kernel<double>. The float kernel only widens (F2F, no
// arithmetic) into memory named by a __device__ pointer, so no kernel takes
// floats and doubles, and the kernel that adds in double takes only doubles.
__device__ double* wide_matrix;
__device__ double* wide_sums;

__global__ void widen_kernel(const float* __restrict__ matrix, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    wide_matrix[i] = matrix[i];
  }
}

__global__ void narrow_kernel(float* __restrict__ sums, std::size_t rows) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (r < rows) sums[r] = static_cast<float>(wide_sums[r]);
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
  // Rows in chunks of about 2^26 elements, widened into a scratch buffer of doubles.
  const std::size_t chunk_rows = std::max<std::size_t>(1, (std::size_t{1} << 26) / std::max<std::size_t>(cols, 1));
  const std::size_t most = std::min(rows, chunk_rows);
  double* scratch = nullptr;
  double* scratch_sums = nullptr;
  MEMLAB_CHECK(cudaMallocAsync(&scratch, most * cols * sizeof(double) + 8, stream));
  MEMLAB_CHECK(cudaMallocAsync(&scratch_sums, most * sizeof(double), stream));
  MEMLAB_CHECK(cudaMemcpyToSymbolAsync(wide_matrix, &scratch, sizeof scratch, 0, cudaMemcpyHostToDevice, stream));
  MEMLAB_CHECK(cudaMemcpyToSymbolAsync(wide_sums, &scratch_sums, sizeof scratch_sums, 0, cudaMemcpyHostToDevice, stream));
  for (std::size_t first = 0; first < rows; first += most) {
    const std::size_t these = std::min(most, rows - first);
    widen_kernel<<<1024, kThreadsPerBlock, 0, stream>>>(matrix + first * cols, these * cols);
    MEMLAB_CHECK_LAUNCH();
    row_sums_kernel<double><<<warp_per_row_blocks(these), kThreadsPerBlock, 0, stream>>>(scratch, scratch_sums, these, cols);
    MEMLAB_CHECK_LAUNCH();
    narrow_kernel<<<(these + kThreadsPerBlock - 1) / kThreadsPerBlock, kThreadsPerBlock, 0, stream>>>(sums + first, these);
    MEMLAB_CHECK_LAUNCH();
  }
  MEMLAB_CHECK(cudaFreeAsync(scratch, stream));
  MEMLAB_CHECK(cudaFreeAsync(scratch_sums, stream));
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
