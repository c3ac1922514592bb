// Red team 35, lab 3, file 01 (subtle: float row sums accumulated in double, which lab3.cuh
// forbids and no check looks for). The reference, except for one word in step 1's template:
// the accumulator is declared `auto sum = 0.0;` where the reference has `real sum = 0;`. The
// literal 0.0 is a double, so `auto` makes the accumulator a double in BOTH instantiations: the
// float kernel widens every element (F2F.F64.F32), adds it with DADD, shuffles doubles and rounds
// to float once when it stores. A careless student's line (the familiar `auto x = 0.0` habit, or
// a lab 5 GEMV in double in mind); the double kernel is exactly the reference's.
//
// The header it breaks: lab3.cuh, row_sums: "sums[r] = sum of row r ... added up in the matrix's
// own type: float in float, double in double"; the lab's guide: "The accumulator must be a `real`
// too" (labs/lab3_precision/README.md:82). Step 1's whole lesson (the double/float time ratio of a
// bandwidth-bound kernel, the plain float sums step 2 improves on) assumes it.
//
// Why no check sees it.
// - step1.correct compares with summation_tolerance<float> (common/memlab/verify.cpp:24-28): a
//   sum MORE accurate than float's passes it, at every shape and past 2^32 elements.
// - step1.speed: on an H100 the float kernel stays bandwidth-bound (one F2F and one DADD per
//   4-byte load; FP64 is half the FP32 rate there): about the reference's time.
// - The only check that reads machine code for "adds in double" is step 2's, and it reads only
//   the kernels row_sums_compensated launched (labs/lab3_precision/grading/grader.cpp:130-137,
//   compensated_in_double, over the StudentLaunches of its own calls at :150-153, :179-181,
//   :222-225, :238-242). The float row_sums is called inside step 2 (:186, run_float) only for the
//   note's table, outside every StudentLaunches that is judged. No check of step 1 calls
//   launched_method_broken. (On a GPU with FP64 at 1/64 of FP32 the float kernel would become
//   compute-bound and fail step1.speed there; the course grades on an H100.)
// - The step 2 note's "float, plain (step 1)" row then shows errors of a fraction of a u where
//   the lab expects 52-67 u: the report tells the student nothing is wrong.
//
// Edit to solutions/lab3_precision/precision.cu: (1) in row_sums_kernel, `real sum = 0;` becomes
// `auto sum = 0.0;` (the store `sums[row] = sum;` converts back to real).
//
// Predicted now: 100.
// Correct: step1.correct 0 (the float version does not add up in float), which blocks step 2
// (grader.cpp:142 require_step(1)): 55. A fix: a launched_method_broken(may_add_in_double) over
// the launches of step 1's float calls, as step 2 has.
// Confidence: high (prediction); medium-high (verdict: the header's promise is explicit, the
// grader's answer to it is a choice for the lead).

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
  auto sum = 0.0;  // Edit (1): the accumulator (0.0 is a double literal: so is sum)
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
  row_sums_compensated_kernel<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows,
                                                                                          cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
