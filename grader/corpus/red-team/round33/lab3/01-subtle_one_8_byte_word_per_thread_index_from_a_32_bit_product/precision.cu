// Red team 33, lab 3, file 01 (subtle: an index that wraps at 2^32 THREADS, which the checks past
// 2^32 and 2^31 elements never reach). Red team 32's file 01 (a std::size_t index made of the
// 32-bit product blockIdx.x * blockDim.x, one thread per element) fails since session 20: the float
// polynomial is checked at 2^32 + 4099 elements and every element of y is counted. Here the same
// spelling, in a kernel where each thread takes one 8-byte word of x: two floats (one 64-bit load)
// or one double. Both types share one template, as lab3.cuh asks; only the elements per thread
// differ. The product wraps once a launch has 2^32 threads: at 2^33 floats, at 2^32 doubles.
//
// Edits to solutions/lab3_precision/precision.cu: (1) kPerWord and Word (8 bytes of real, aligned
// as such); (2) polynomial_kernel: one word per thread, its index `const std::size_t word =
// blockIdx.x * blockDim.x + threadIdx.x;`, a Word loaded and stored whole, a scalar tail for a last
// odd float; (3) launch_polynomial: one thread per word, ceil(words / 256) blocks.
//
// Why it passes (HEAD e2d041e). check_polynomial_huge (labs/lab3_precision/grading/polynomial.hpp:
// 191-210) runs the float polynomial at kBeyond32BitsElements = 2^32 + 4099 (common/memlab/
// by_gpu.hpp:51) and the double one at kBeyond31Bits = 2^31 + 4099 (:48). In float that is
// 2^31 + 2050 words: 8388617 blocks of 256, the largest product 8388616 x 256 = 2^31 + 2048 < 2^32;
// in double 8388625 blocks, the largest product 2^31 + 4096. No index wraps in either run, so every
// element of y is written with its own value (the count, polynomial.hpp:158-163, finds none left;
// the 64 sampled chunks match), as at 1 to 2^24 (check_polynomial, :94-127). It goes wrong from
// n = 2^33 + 1 floats and n = 2^32 + 1 doubles on (a launch of more than 2^32 threads): block
// 2^24's product wraps to 0, its threads rewrite y[0..] with their own values, and the elements
// from 2^33 (2^32) on are never written. lab3.cuh:19-23: "more than 2^32 polynomial inputs must
// work"; both sizes take 68.7 GB for x and y (64 GiB), which an 80 GB H100 holds (the checks take
// 34.4 GB, the limit the grader chose: polynomial.hpp:183-189, grader/README.md:1011-1012).
// Speed (step 3's timed checks at 2^24): a compute-bound kernel, two independent Horner chains per
// float thread (more in flight than the reference's one), one per double thread as round 32's file
// 01, which kept its speed points (run 136).
//
// Predicted now: 100 (not run on a GPU). Correct: 80 (step3.correct 0: a contract lab3.cuh states;
// speed points kept). Confidence: high on the prediction (no index of either checked run reaches
// 2^32 threads, by arithmetic); medium on "correct", as for red team 32's file 01 (it rests on
// lab3.cuh's promise for sizes the grader does not run).

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
// Edit (1): each thread takes one 8-byte word of x: two floats or one double, loaded and stored
// as one 64-bit access.
template <typename real>
constexpr int kPerWord = static_cast<int>(8 / sizeof(real));

template <typename real>
struct alignas(8) Word {
  real v[kPerWord<real>];
};

template <typename real>
__device__ real horner(real xi) {
  real value = 1;
#pragma unroll
  for (int k = 0; k < kPolynomialDegree; ++k) value = value * xi + real(1);
  return value;
}

// Edit (2): one word per thread (a float thread runs two independent chains, interleaved).
template <typename real>
__global__ void polynomial_kernel(const real* __restrict__ x, real* __restrict__ y, std::size_t n) {
  constexpr int kPer = kPerWord<real>;
  const std::size_t word = blockIdx.x * blockDim.x + threadIdx.x;
  const std::size_t first = word * kPer;
  if (first >= n) return;
  if (first + kPer <= n) {
    const Word<real> in = reinterpret_cast<const Word<real>*>(x)[word];
    Word<real> out;
#pragma unroll
    for (int j = 0; j < kPer; ++j) out.v[j] = 1;
#pragma unroll
    for (int k = 0; k < kPolynomialDegree; ++k) {
#pragma unroll
      for (int j = 0; j < kPer; ++j) out.v[j] = out.v[j] * in.v[j] + real(1);
    }
    reinterpret_cast<Word<real>*>(y)[word] = out;
  } else {
    for (std::size_t i = first; i < n; ++i) y[i] = horner(x[i]);  // the last float of an odd n
  }
}

template <typename real>
void launch_polynomial(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Edit (3): one thread per word (grids of up to 2^31 - 1 blocks are allowed).
  const std::size_t words = (n + kPerWord<real> - 1) / kPerWord<real>;
  const std::size_t blocks = (words + kThreadsPerBlock - 1) / kThreadsPerBlock;
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
