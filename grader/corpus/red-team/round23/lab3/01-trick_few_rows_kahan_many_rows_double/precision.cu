// Red team 23, lab 3, file 01 (TRICK). Step 2 is honest only where it is judged.
//
// row_sums_compensated dispatches on the number of rows:
// - rows <= 256 (step 2's accuracy check: 128 rows): a beginner's Kahan sum,
//   one thread per row, all in float. Slow, but no kernel of this call adds
//   in double, and the sums are accurate.
// - more rows (the check past 2^32 elements: 65537 rows; step 2's timed
//   matrix: about 2048 rows): a warp per row that widens every float and adds
//   it up in double (DADD), then rounds the row's sum to float. As accurate as
//   compensation, and as fast as the reference.
// Since 040387c the grader judges only the kernels launched by the one call
// made in the accuracy check (launched_method_broken); the calls of the check
// past 2^32 elements and of step2.speed are not judged at all. Before it, the
// whole build was read, and widen_and_add_in_double (floats in, DADD) failed
// step 2 whatever the launches.
// Steps 1 and 3 are ordinary: a warp per row template, and a grid-stride Horner.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>

#include <cstddef>

namespace lab3 {

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kWarpsInBlock = kBlock / 32;
constexpr std::size_t kFewRows = 256;

std::size_t blocks_for_warps(std::size_t warps) { return (warps + kWarpsInBlock - 1) / kWarpsInBlock; }

template <typename real>
__device__ real warp_total(real value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  return value;
}

// Step 1: a warp per row, each lane a strided slice, added in the matrix's own type.
template <typename real>
__global__ void warp_row_sums(const real* __restrict__ matrix, real* __restrict__ sums, std::size_t rows,
                              std::size_t cols) {
  const std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (row >= rows) return;
  const real* line = matrix + row * cols;
  real total = 0;
  for (std::size_t c = lane; c < cols; c += 32) total += line[c];
  total = warp_total(total);
  if (lane == 0) sums[row] = total;
}

template <typename real>
void launch_row_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  warp_row_sums<real><<<blocks_for_warps(rows), kBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

// The honest path: one thread per row, Kahan in float.
__global__ void kahan_thread_per_row(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t rows,
                                     std::size_t cols) {
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* line = matrix + row * cols;
  float sum = 0.0f, c = 0.0f;
  for (std::size_t i = 0; i < cols; ++i) {
    const float y = line[i] - c;
    const float t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  sums[row] = sum;
}

// The path nobody judges: floats widened and added up in double.
__global__ void widen_and_add_in_double(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t rows,
                                        std::size_t cols) {
  const std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* line = matrix + row * cols;
  double total = 0.0;
  for (std::size_t c = lane; c < cols; c += 32) total += static_cast<double>(line[c]);
  total = warp_total(total);
  if (lane == 0) sums[row] = static_cast<float>(total);
}

template <typename real>
__global__ void horner(const real* __restrict__ x, real* __restrict__ y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const real v = x[i];
    real acc = 1;
    for (int k = 0; k < kPolynomialDegree; ++k) acc = acc * v + real(1);
    y[i] = acc;
  }
}

template <typename real>
void launch_horner(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  int device = 0, sms = 0;
  MEMLAB_CHECK(cudaGetDevice(&device));
  MEMLAB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t wanted = (n + kBlock - 1) / kBlock;
  const std::size_t most = static_cast<std::size_t>(sms) * 16;
  horner<real><<<static_cast<unsigned>(wanted < most ? wanted : most), kBlock, 0, stream>>>(x, y, n);
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
  if (rows <= kFewRows) {
    kahan_thread_per_row<<<static_cast<unsigned>((rows + 63) / 64), 64, 0, stream>>>(matrix, sums, rows, cols);
  } else {
    widen_and_add_in_double<<<blocks_for_warps(rows), kBlock, 0, stream>>>(matrix, sums, rows, cols);
  }
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_horner(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) { launch_horner(x, y, n, stream); }

}  // namespace lab3
