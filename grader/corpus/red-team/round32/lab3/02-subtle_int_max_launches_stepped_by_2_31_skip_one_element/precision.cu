// Red team 32, lab 3, file 02 (subtle: one element never written past 2^31, which a sampled check
// does not find). The reference, except that the polynomial kernel keeps 32-bit int indices and the
// host splits longer arrays into launches of at most INT_MAX = 2^31 - 1 elements, stepping from one
// launch to the next by 2^31: an off-by-one between "INT_MAX" and "2^31". Up to n = 2^31 - 1 there
// is one launch and every element is right. At n = 2^31 + 4099 the first launch writes y[0] to
// y[2^31 - 2], the second y[2^31] to y[n - 1], and y[2^31 - 1] keeps the grader's poison.
//
// Edits to solutions/lab3_precision/precision.cu: (1) polynomial_kernel: one element per thread, an
// int index, n an int; (2) launch_polynomial: launches of min(n - first, INT_MAX) elements, first
// stepping by 2^31.
//
// Why it passes (HEAD 6e22bdc). check_polynomial_beyond_31_bits (labs/lab3_precision/grading/
// polynomial.hpp:182-199) verifies the run as a timed run is (checked_polynomial, :137-174): the
// guard zone past y (:154), then 64 chunks of 32 elements: the first, the last, and 62 starting at
// uniformly drawn places (sample_starts, common/memlab/grading/speed.hpp:97-102). The one element
// left is in a chunk with probability about 62 x 32 / 2^31 = 9 x 10^-7 per type: the check passes
// in float and in double all but about twice in a million runs. check_polynomial's count of
// unwritten elements (:110-120), which would name it at once, runs only up to 2^24, where this file
// has one launch. Every other element, past 2^31 included, is right.
// More generally, a bug confined to R elements of the 2^31 escapes with probability about
// (1 - R / 2^31)^62 per type: 97% for a million elements.
//
// Predicted now: 100 (not run on a GPU). Correct: 80 (step3.correct 0: an element never written, as
// check_polynomial reports at small n: "%zu elements never written"). Confidence: high.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>
#include <limits>

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

// ---- Step 2: compensated summation in float -------------------------------

// Kahan's idea: `compensation` holds what the last additions lost to rounding
// (negated), and is subtracted from the next term before it is added. The
// lost part of t = sum + y is exactly (t - sum) - y: IEEE arithmetic without
// --use_fast_math evaluates it as written, so nvcc must not simplify it to 0.
struct Compensated {
  float sum = 0.0f;
  float compensation = 0.0f;

  __device__ void add(float x) {
    const float y = x - compensation;
    const float t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  // Adds another lane's (sum, compensation). The rounding error of the two sums'
  // addition is recovered exactly (Knuth's two-sum) and kept in the compensation.
  __device__ void merge(const Compensated& other) {
    const float t = sum + other.sum;
    const float other_part = t - sum;
    const float rounding = (sum - (t - other_part)) + (other.sum - other_part);
    compensation += other.compensation - rounding;
    sum = t;
  }
  __device__ float value() const { return sum - compensation; }
};

// Memory pattern: the same as row_sums_kernel (one warp per row, coalesced);
// the extra floating-point work (4 operations per element instead of 1) hides
// under the loads, so the compensated sum costs (almost) no time.
__global__ void row_sums_compensated_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                            std::size_t rows, std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;
  const float* line = matrix + row * cols;
  Compensated total;
  for (std::size_t c = lane; c < cols; c += kWarpSize) total.add(line[c]);
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Compensated other;
    other.sum = __shfl_down_sync(kFullWarp, total.sum, offset);
    other.compensation = __shfl_down_sync(kFullWarp, total.compensation, offset);
    total.merge(other);
  }
  if (lane == 0) sums[row] = total.value();
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
// Edit (1): 32-bit indices inside a kernel (cheaper address arithmetic), so a launch covers at most
// INT_MAX elements and longer arrays take several launches.
constexpr std::size_t kMostPerLaunch = static_cast<std::size_t>(std::numeric_limits<int>::max());
constexpr std::size_t kLaunchStep = std::size_t{1} << 31;  // Edit (2): "2^31 per launch" (2^31 - 1 intended)

template <typename real>
__global__ void polynomial_kernel(const real* __restrict__ x, real* __restrict__ y, int n) {
  // Edit (1): one thread per element, an int index (n <= INT_MAX, so it never wraps).
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const real xi = x[i];
  real value = 1;
#pragma unroll
  for (int k = 0; k < kPolynomialDegree; ++k) value = value * xi + real(1);
  y[i] = value;
}

template <typename real>
void launch_polynomial(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  // Edit (2): launches of at most kMostPerLaunch elements, the next one kLaunchStep further on.
  for (std::size_t first = 0; first < n; first += kLaunchStep) {
    const std::size_t count = std::min(n - first, kMostPerLaunch);
    const std::size_t blocks = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
    polynomial_kernel<real><<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(
        x + first, y + first, static_cast<int>(count));
    MEMLAB_CHECK_LAUNCH();
  }
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
  row_sums_compensated_kernel<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows,
                                                                                          cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
