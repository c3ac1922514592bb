// Red team 36, lab 3, file 01 (subtle: step 1's float row sums added up in double, the widening
// and the adding in two kernels). The reference, except that the FLOAT row_sums reuses the double
// version: it widens a slab of rows into a double scratch buffer (widen_kernel: F2F.F64.F32 and
// 8-byte stores, no arithmetic), sums the slab with the SAME template instantiated for double
// (row_sums_kernel<double>: DADD, no conversion from float) and rounds the double sums to float
// (narrow_kernel: F2F.F32.F64). The float sums are added up in double, which lab3.cuh forbids
// ("added up in the matrix's own type: float in float") and the guide says fails ("a `double`
// accumulator in the float kernel ... widens every term": labs/lab3_precision/README.md:85-87).
// The familiar lazy path: "the double version already works, convert and call it".
//
// Why the new check misses it. Session 21's step 1 check (labs/lab3_precision/grading/grader.cpp:
// 79-84, launched_method_broken over the float calls) applies adds_widened_floats_in_double
// (common/memlab/grading/machine_code.cpp:320-322) to EACH launched kernel alone: it wants
// F2F.F64.F32 and DADD/DFMA/DMMA (or an .ADD...F64) in the same kernel. Here widen_kernel widens
// and adds nothing; row_sums_kernel<double> adds and widens nothing; narrow_kernel narrows. The
// same predicate is the fallback for unwatched launches (whole build, kernel by kernel). This is
// red team 12's file 02 (widen and add in separate kernels) moved from step 2, where
// computes_on_floats_in_double catches widen_kernel by its float and double parameters, to step 1,
// whose predicate dropped that test so that red team 22's count in double would pass.
//
// Cost: the float version moves 20 bytes per element instead of 4 (read 4, write 8, read 8):
// about 5x the reference's time at the timing shape, so step1.speed gives 0 (ratio past 3.0).
// Memory: a 512 MiB scratch per call (stream-ordered, freed at the end of each call).
//
// Edits to solutions/lab3_precision/precision.cu: (1) widen_kernel and narrow_kernel after
// launch_row_sums; (2) the float row_sums converts slabs of rows and calls launch_row_sums<double>.
//
// Predicted now: step1.correct 20 (pass), step1.speed 0, step2 25 (the reference's compensated
// sums, no longer blocked), step3 40: 85.
// Correct: step1.correct 0 (float sums added up in double), which blocks step 2 (require_step(1),
// grader.cpp:157): 40.
// Confidence: high (prediction: per-kernel predicate, read from the code); high (verdict: the
// README names exactly this, "a double accumulator in the float kernel", as a failure).

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

// Edit (1): the float version goes through the double one. widen_kernel copies count floats into
// doubles (a conversion, no arithmetic); narrow_kernel rounds the double sums back to float.
__global__ void widen_kernel(const float* __restrict__ in, double* __restrict__ out, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    out[i] = in[i];
  }
}

__global__ void narrow_kernel(const double* __restrict__ in, float* __restrict__ out, std::size_t count) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = static_cast<float>(in[i]);
}

constexpr std::size_t kSlabDoubles = std::size_t{1} << 26;  // 512 MiB of scratch per slab of rows

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
  // Edit (2): widen a slab of rows to double, sum it with the double template, round back.
  if (rows == 0) return;
  const std::size_t slab_rows = std::min(rows, std::max<std::size_t>(1, kSlabDoubles / std::max<std::size_t>(cols, 1)));
  double* wide = nullptr;
  double* wide_sums = nullptr;
  MEMLAB_CHECK(cudaMallocAsync(&wide, std::max<std::size_t>(1, slab_rows * cols) * sizeof(double), stream));
  MEMLAB_CHECK(cudaMallocAsync(&wide_sums, slab_rows * sizeof(double), stream));
  const std::size_t copy_blocks = std::size_t{8} * memlab::multiprocessor_count();
  for (std::size_t first = 0; first < rows; first += slab_rows) {
    const std::size_t count = std::min(slab_rows, rows - first);
    widen_kernel<<<copy_blocks, kThreadsPerBlock, 0, stream>>>(matrix + first * cols, wide, count * cols);
    MEMLAB_CHECK_LAUNCH();
    launch_row_sums<double>(wide, wide_sums, count, cols, stream);
    narrow_kernel<<<(count + kThreadsPerBlock - 1) / kThreadsPerBlock, kThreadsPerBlock, 0, stream>>>(
        wide_sums, sums + first, count);
    MEMLAB_CHECK_LAUNCH();
  }
  MEMLAB_CHECK(cudaFreeAsync(wide, stream));
  MEMLAB_CHECK(cudaFreeAsync(wide_sums, stream));
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
