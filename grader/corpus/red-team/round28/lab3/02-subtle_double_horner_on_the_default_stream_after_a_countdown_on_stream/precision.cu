// Red team 28, lab 3, file 02: subtle, the twin of file 01: the same race in the double version
// (float's Horner kernel on `stream`). A control that the shake does expose this race in one parity.
//
// The race: the countdown is set by a one-thread kernel on `stream`, and the Horner kernel of one
// type is launched with no stream (the legacy default stream): the two are unordered, a
// stream -> legacy dependence. Unheld (timed calls) it always comes out right: the set kernel is
// enqueued first and finishes in a microsecond or two, and no block reads the countdown before it
// has finished its own first chunk (4 Horner chains of 512 steps per thread, several us). Under the
// order shake at HEAD 6fbfd86 (common/memlab/grading/remote.cu:710-727, :734; wait kernels enqueued
// at :936-940) it comes out wrong only in the calls where `stream` is held LONGER (500 us) than the
// legacy stream (20 us): the Horner kernel runs first, on the countdown the previous call's late set
// left, and where that is smaller than this call's chunks minus the grid, chunks go unwritten (its
// blocks leave after their own chunk, tens of us, long before the set at ~500 us). In the other
// parity (legacy held 500 us) the countdown is set at ~20 us and the Horner kernel runs at ~500 us:
// right. A late set leaves the countdown right for the next call of the same parity, so only a call
// that follows a smaller one of the exposed parity fails (n = 2^24 after n = 65537 below).
//
// Which parity a call gets is a single alternation over ALL the student's shaken calls
// (remote.cu:719-720, a static toggle), and the polynomial's check calls float and double alternately,
// one call each (labs/lab3_precision/grading/grader.cpp:240-248; polynomial.hpp check_polynomial makes
// one call): every float call of step 3 gets one parity and every double call the other, the
// timing-size check's two calls too (grader.cpp:254-256). So of files 01 and 02 (the same race, in the
// float function in one and the double function in the other) exactly one is exposed and the other
// is NEVER exposed, whatever the count. The count on an H100 or H200 80 GB+ (room for both 2^32
// checks of step 1): step 1 correct 8 + 8 + 1 + 1 (grader.cpp:64-74, matrix_sums.hpp
// check_sums_on_shapes and check_sums_beyond_32_bits), step 1 speed 2 untimed (grader.cpp:81-83),
// step 2 4 (grader.cpp:166-210); so step 3's first call is shaken call 24 (from 0), and call 0 flips
// the toggle to "legacy longer": even calls hold the legacy stream longer. Float calls: legacy longer
// (this race is not exposed); double calls: `stream` longer (exposed). On a GPU without room for
// step 1's double 2^32 check (34 GB + 1/8) the count is odd and the two files swap.
// In the exposed type the first calls (n = 1, 31, 1000, 65537: chunks <= grid) need no countdown;
// n = 2^24 (16384 chunks, grid 8 x SMs = 1056 on an H100) starts from the 65 the n = 65537 call
// left, so the chunks past the grid are never written: "elements never written".
//
// Predicted now (H100/H200): graded, step3.correct 0 ("n = 16777216: ... elements never written");
// step3.speed 20 (the timing-size check's double call starts from the countdown the n = 2^24 check
// left, 16384, and writes every chunk; timed calls are not shaken): total 80. Correct: step3.correct 0
// (total 80). Confidence: medium-high (parity count as file 01).

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
// This file's polynomial: blocks take chunks of kChunk elements (kPerThread per thread, each its own
// Horner chain). Block b first does chunk b; the chunks past the grid are dealt from a countdown in
// device memory, which a one-thread kernel sets to the chunk count before the Horner kernel starts.
constexpr int kPerThread = 4;
constexpr std::size_t kChunk = std::size_t{kThreadsPerBlock} * kPerThread;

__device__ unsigned long long g_countdown[2];  // [0] float, [1] double

__global__ void set_countdown_kernel(unsigned long long* countdown, unsigned long long chunks) { *countdown = chunks; }

template <typename real>
__device__ void horner_chunk(const real* __restrict__ x, real* __restrict__ y, std::size_t n, std::size_t chunk) {
  const std::size_t first = chunk * kChunk + threadIdx.x;
  for (int e = 0; e < kPerThread; ++e) {
    const std::size_t i = first + static_cast<std::size_t>(e) * kThreadsPerBlock;
    if (i >= n) return;
    const real xi = x[i];
    real value = 1;
#pragma unroll
    for (int k = 0; k < kPolynomialDegree; ++k) value = value * xi + real(1);
    y[i] = value;
  }
}

template <typename real>
__global__ void polynomial_countdown_kernel(const real* __restrict__ x, real* __restrict__ y, std::size_t n,
                                            long long chunks, unsigned long long* countdown) {
  __shared__ long long next;
  horner_chunk(x, y, n, blockIdx.x);  // the block's own chunk: no countdown needed
  const long long own_chunks = static_cast<long long>(gridDim.x);
  for (;;) {
    __syncthreads();  // every thread has read the last `next`
    if (threadIdx.x == 0) next = static_cast<long long>(atomicAdd(countdown, ~0ull)) - 1;  // count down by one
    __syncthreads();
    const long long chunk = next;
    if (chunk < own_chunks) return;  // the rest were the blocks' own chunks
    if (chunk < chunks) horner_chunk(x, y, n, static_cast<std::size_t>(chunk));
  }
}

template <typename real>
unsigned long long* countdown_of() {
  static unsigned long long* address = [] {
    void* found = nullptr;
    MEMLAB_CHECK(cudaGetSymbolAddress(&found, g_countdown));
    return static_cast<unsigned long long*>(found) + (sizeof(real) == sizeof(double) ? 1 : 0);
  }();
  return address;
}

// @p horner_stream: where the Horner kernel goes. The countdown is always set on @p stream.
template <typename real>
void launch_polynomial(const real* x, real* y, std::size_t n, cudaStream_t stream, cudaStream_t horner_stream) {
  if (n == 0) return;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  const std::size_t blocks = std::min<std::size_t>(chunks, std::size_t{8} * memlab::multiprocessor_count());
  set_countdown_kernel<<<1, 1, 0, stream>>>(countdown_of<real>(), chunks);
  MEMLAB_CHECK_LAUNCH();
  polynomial_countdown_kernel<real><<<blocks, kThreadsPerBlock, 0, horner_stream>>>(
      x, y, n, static_cast<long long>(chunks), countdown_of<real>());
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

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream, /*horner_stream=*/0);  // no stream: the legacy default stream
}

}  // namespace lab3
