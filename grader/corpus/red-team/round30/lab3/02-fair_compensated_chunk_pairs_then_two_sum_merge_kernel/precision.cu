// Red team 30, lab 3, file 02 (fair): the compensated sums in two launches, with no
// atomics and no double anywhere.
//
// What the student did (step 2 only; steps 1 and 3 are the reference's):
//   - Pass 1, compensated_chunks_kernel: a block of 256 threads per (row, chunk of
//     8192 columns). Each thread keeps a Kahan sum of its columns (c, c + 256, ...:
//     each warp reads 128 contiguous bytes), the warp merges its 32 (sum, compensation)
//     pairs by shuffles with the reference's two-sum merge, the block's 8 warp pairs
//     meet in shared memory and warp 0 merges them, and thread 0 writes the chunk's
//     pair (a float2) to a scratch array.
//   - Pass 2, compensated_merge_kernel: a warp per row merges the row's chunk pairs
//     (two-sum again) and writes sum - compensation.
//   - The scratch array is the file's own, grown on demand with cudaMalloc (cudaFree
//     of the old one, which waits, only when a larger matrix comes) and kept between
//     calls: the stream-ordered allocator would return it to the driver at every
//     synchronisation (release threshold 0) and map it again at every call.
//   - Both grids loop (over rows in x, over chunks in y), so no shape the header
//     allows runs out of grid dimensions (65535 chunks at most).
//
// Why it is right. Every addition is in float. A Kahan sum of 32 terms per thread,
// then a tree of two-sum merges whose rounding errors go into the compensation: the
// sum is within a couple of u of exact on step 2's spread and mixed rows (the
// reference merges its 32 lanes the same way). Nothing in either kernel adds in
// double (compensated_in_double, labs/lab3_precision/grading/grader.cpp:116-137,
// judges every kernel row_sums_compensated launches: both are float).
//
// Speed (step2.speed: 2048 rows of 131072 on an H100, spread_rows.cu). Pass 1 is
// 2048 x 16 = 32768 blocks of 256 threads, 32 loads per thread, full occupancy (the
// reference runs 2048 warps, 15.5 per SM); it reads the matrix once. The scratch is
// 2048 x 16 pairs, 256 KB written and read: 0.02% of the 1.07 GB. Pass 2 is 256
// blocks of 8 warps, 16 pairs per row: a few microseconds. Expected within 1.1x of
// the reference.
//
// Predicted now: 100. Correct: 100. Confidence: medium-high (a speed check).
// Otherwise: lab 3 reference solution: float vs double.
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

// RED TEAM 30: step 2 in two passes (see the top of the file).
constexpr int kPassThreads = 256;
constexpr int kPassWarps = kPassThreads / kWarpSize;
constexpr std::size_t kChunkColumns = 8192;
constexpr std::size_t kMostChunks = 65535;      // gridDim.y's limit
constexpr std::size_t kMostRowBlocks = 1u << 30;  // under gridDim.x's limit

// The 32 lanes' pairs merged into lane 0's (the others keep partial merges).
__device__ Compensated merge_warp(Compensated total) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Compensated other;
    other.sum = __shfl_down_sync(kFullWarp, total.sum, offset);
    other.compensation = __shfl_down_sync(kFullWarp, total.compensation, offset);
    total.merge(other);
  }
  return total;
}

// Memory pattern: the 256 threads of a block read 256 neighbouring floats of one row
// per step (each warp 128 contiguous bytes). One (sum, compensation) pair per chunk.
__global__ void compensated_chunks_kernel(const float* __restrict__ matrix, float2* __restrict__ partials,
                                          std::size_t rows, std::size_t cols, std::size_t chunks,
                                          std::size_t chunk_columns) {
  __shared__ float2 warp_pairs[kPassWarps];
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* line = matrix + row * cols;
    for (std::size_t chunk = blockIdx.y; chunk < chunks; chunk += gridDim.y) {
      const std::size_t first = chunk * chunk_columns;
      const std::size_t end = first + chunk_columns < cols ? first + chunk_columns : cols;
      Compensated total;
      for (std::size_t c = first + threadIdx.x; c < end; c += kPassThreads) total.add(line[c]);
      total = merge_warp(total);
      if (lane == 0) warp_pairs[warp] = make_float2(total.sum, total.compensation);
      __syncthreads();  // every warp's pair written before warp 0 reads them
      if (warp == 0) {
        Compensated block_total;
        if (lane < kPassWarps) {
          block_total.sum = warp_pairs[lane].x;
          block_total.compensation = warp_pairs[lane].y;
        }
        block_total = merge_warp(block_total);
        if (lane == 0) partials[row * chunks + chunk] = make_float2(block_total.sum, block_total.compensation);
      }
      __syncthreads();  // warp 0 has read warp_pairs before the next chunk writes them
    }
  }
}

// A warp per row merges the row's chunk pairs and writes the compensated sum.
__global__ void compensated_merge_kernel(const float2* __restrict__ partials, float* __restrict__ sums,
                                         std::size_t rows, std::size_t chunks) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;  // the whole warp leaves together
  Compensated total;
  for (std::size_t chunk = lane; chunk < chunks; chunk += kWarpSize) {
    const float2 pair = partials[row * chunks + chunk];
    Compensated other;
    other.sum = pair.x;
    other.compensation = pair.y;
    total.merge(other);
  }
  total = merge_warp(total);
  if (lane == 0) sums[row] = total.value();
}

// The scratch array of chunk pairs, kept between calls and grown when a larger matrix comes.
float2* chunk_pairs(std::size_t count) {
  static float2* pairs = nullptr;
  static std::size_t capacity = 0;
  if (count > capacity) {
    MEMLAB_CHECK(cudaFree(pairs));  // waits for the GPU: only when a larger matrix comes
    pairs = nullptr;
    MEMLAB_CHECK(cudaMalloc(&pairs, count * sizeof(float2)));
    capacity = count;
  }
  return pairs;
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
  // RED TEAM 30: two passes through a scratch array of (sum, compensation) pairs.
  const std::size_t wanted_chunks = std::max<std::size_t>(1, (cols + kChunkColumns - 1) / kChunkColumns);
  const std::size_t chunks = std::min(wanted_chunks, kMostChunks);
  const std::size_t chunk_columns = std::max<std::size_t>(1, (cols + chunks - 1) / chunks);
  float2* partials = chunk_pairs(rows * chunks);
  const dim3 grid(static_cast<unsigned>(std::min(rows, kMostRowBlocks)), static_cast<unsigned>(chunks));
  compensated_chunks_kernel<<<grid, kPassThreads, 0, stream>>>(matrix, partials, rows, cols, chunks, chunk_columns);
  MEMLAB_CHECK_LAUNCH();
  compensated_merge_kernel<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(partials, sums, rows, chunks);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
