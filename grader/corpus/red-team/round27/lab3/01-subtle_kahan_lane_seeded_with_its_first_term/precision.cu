// Red team 27, lab 3, file 01 (subtle bug): the compensated sums start each
// lane's Kahan sum from its first term instead of from 0 ("one rounding fewer"):
//     float sum = line[lane]; float c = 0; for (col = lane + 32; ...) kahan_add
// Every lane reads line[lane] whether the row has that many columns or not. In a
// row of fewer than 32 columns, lanes >= cols read the next row's first elements
// (or, in the last row, past the matrix), so the row sums are wrong: row_sums_
// compensated(1000 x 1) returns each row plus the next 31 elements.
// lab3.cuh promises "the same float row sums" as step 1, for any shape.
//
// Expected now: 100, sure. The grader calls row_sums_compensated on three shapes
// only: 128 x 131072 (grader.cpp:47, spread_rows.hpp:25), 65537 x 65537 (the check
// past 32 bits, grader.cpp:210) and the timed rows x 131072 (grader.cpp:227). All
// have 32 columns or more, so line[lane] is always in the row. Step 1's shapes
// (1 x 1, 1000 x 1, 1000 x 37, 100001 x 3: grader.cpp:52-53) are never given to
// the compensated sums. Everything else is right: Kahan in every lane, the
// lanes' compensations merged along (Knuth's two-sum), float only.
// Correct: step2.accuracy fails (0 of 15), and step2.speed, which needs step 2
// (grader.cpp:217), earns nothing: 75.
// Suggested: run check_sums_on_shapes(row_sums_compensated, ...) on kShapes in
// step 2's accuracy check (the tolerance of a float sum holds for Kahan too).

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

namespace lab3 {

namespace {

constexpr int kThreads = 256;
constexpr int kLanes = 32;
constexpr int kRowsPerBlock = kThreads / kLanes;
constexpr unsigned kAllLanes = 0xffffffffu;

unsigned row_blocks(std::size_t rows) { return static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock); }

}  // namespace

// ---- Step 1 ----------------------------------------------------------------

// A warp per row: lane l adds columns l, l + 32, ... (coalesced), then the 32
// partial sums meet through shuffles.
template <typename real>
__global__ void row_sums_kernel(const real* matrix, real* sums, std::size_t rows, std::size_t cols) {
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kLanes;
  const int lane = threadIdx.x % kLanes;
  if (row >= rows) return;
  const real* line = matrix + row * cols;
  real sum = 0;
  for (std::size_t col = lane; col < cols; col += kLanes) sum += line[col];
  for (int offset = kLanes / 2; offset > 0; offset >>= 1) sum += __shfl_down_sync(kAllLanes, sum, offset);
  if (lane == 0) sums[row] = sum;
}

template <typename real>
void launch_row_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_kernel<real><<<row_blocks(rows), kThreads, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

// ---- Step 2 ----------------------------------------------------------------

// Kahan: c holds (minus) what the additions so far have lost.
__device__ __forceinline__ void kahan_add(float& sum, float& c, float x) {
  const float y = x - c;
  const float t = sum + y;
  c = (t - sum) - y;
  sum = t;
}

__global__ void row_sums_compensated_kernel(const float* matrix, float* sums, std::size_t rows, std::size_t cols) {
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kLanes;
  const int lane = threadIdx.x % kLanes;
  if (row >= rows) return;
  const float* line = matrix + row * cols;
  // Start from the lane's first term: one addition (and one rounding) fewer.
  float sum = line[lane];
  float c = 0.0f;
  for (std::size_t col = lane + kLanes; col < cols; col += kLanes) kahan_add(sum, c, line[col]);
  // Merge the lanes: two-sum recovers each merge's rounding error exactly.
  for (int offset = kLanes / 2; offset > 0; offset >>= 1) {
    const float other_sum = __shfl_down_sync(kAllLanes, sum, offset);
    const float other_c = __shfl_down_sync(kAllLanes, c, offset);
    const float t = sum + other_sum;
    const float b = t - sum;
    const float lost = (sum - (t - b)) + (other_sum - b);
    c = c + other_c - lost;
    sum = t;
  }
  if (lane == 0) sums[row] = sum - c;
}

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_compensated_kernel<<<row_blocks(rows), kThreads, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 3 ----------------------------------------------------------------

template <typename real>
__global__ void polynomial_kernel(const real* x, real* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
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
  const std::size_t enough = (n + kThreads - 1) / kThreads;
  const std::size_t full = 8 * static_cast<std::size_t>(memlab::multiprocessor_count());
  polynomial_kernel<real><<<static_cast<unsigned>(enough < full ? enough : full), kThreads, 0, stream>>>(x, y, n);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
