// Red team 32, lab 3, file 01 (subtle: an index wrong past 2^32 elements that the new check past
// 2^31 cannot see). The reference, except that the polynomial runs one thread per element and
// computes its index as `const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;`: declared
// std::size_t, as lab3.cuh and the guide ask, but blockIdx.x * blockDim.x is multiplied in 32 bits
// and wraps before it is widened. It is exactly the spelling step 3's new hint warns against
// ("blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x", polynomial.hpp:194-195), and
// round 27's lab 1 file 05 in lab 3.
//
// Edits to solutions/lab3_precision/precision.cu: (1) polynomial_kernel: one element per thread,
// the index from the 32-bit product; (2) launch_polynomial: ceil(n / 256) blocks.
//
// Why it passes (HEAD 6e22bdc). check_polynomial_beyond_31_bits (labs/lab3_precision/grading/
// polynomial.hpp:182-199) runs at n = kBeyond31Bits = 2^31 + 4099 (common/memlab/by_gpu.hpp:48):
// 8388625 blocks of 256, the largest product 8388624 x 256 = 2^31 + 3840 < 2^32, so every index is
// right there, as at 1 to 2^24. It wraps from n = 2^32 + 256 on: thread 0 of block 2^24 then reads
// x[0] and writes y[0], and the elements from 2^32 on are never written (lab3.cuh: "more than 2^31
// polynomial inputs must work"). Labs 2, 3 (sums) and 5 check past 2^32 (matrix_sums.hpp:284-303,
// whose hint names "past 2^32, one in an unsigned int"); lab 1 stops at 2^31 + 4099 for a reason
// given in labs/lab1_caching/grading/arrays.cpp:110-114 (a one-block vector_add would need some 7 s
// past 2^32 and pass the 5 s call limit). That reason does not hold here: a one-block polynomial
// already takes far longer than 5 s at 2^31 (1.1 x 10^12 dependent FMAs on one SM), while a fair one
// takes ~70 ms in float at 2^32 (2.2 x 10^12 FMAs; x and y: 34.4 GB, which an 80 GB H100 holds).
// Speed: one thread per element of a compute-bound kernel keeps the reference's pace (2^24 elements:
// 65536 blocks, every SM full).
//
// Predicted now: 100 (not run on a GPU). Correct: 80 (step3.correct 0, as round 30's int index now
// loses; speed points kept). Confidence: high on the prediction (the check's largest index is
// below 2^32 by construction); medium on "correct" (it rests on lab3.cuh's std::size_t promise
// covering n >= 2^32, as lab 2's check past 2^32 does for the same spelling).

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
template <typename real>
__global__ void polynomial_kernel(const real* __restrict__ x, real* __restrict__ y, std::size_t n) {
  // Edit (1): one thread per element; the index is declared std::size_t, but blockIdx.x * blockDim.x
  // is an unsigned int product, which wraps at 2^32 before it is widened.
  const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const real xi = x[i];
  real value = 1;
#pragma unroll
  for (int k = 0; k < kPolynomialDegree; ++k) value = value * xi + real(1);
  y[i] = value;
}

template <typename real>
void launch_polynomial(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Edit (2): one thread per element (grids of up to 2^31 - 1 blocks are allowed).
  const std::size_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  polynomial_kernel<real><<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(x, y, n);
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
  row_sums_compensated_kernel<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows,
                                                                                          cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
