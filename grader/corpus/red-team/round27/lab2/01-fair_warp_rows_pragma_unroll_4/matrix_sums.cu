// Red team 27, lab 2, file 01 (fair, slower for a reason the guide never names):
// the guide's warp-per-row row sums with `#pragma unroll 4` on the lane's loop
// (the habit lab 3 teaches for its polynomial), and split column sums with
// chunks sized for a dozen blocks per SM.
//
// What nvcc 13.0 makes of the pragma on this loop (cuobjdump -sass, sm_90; the
// loop's trip count is not known): four copies of the body, each
// LDG -> compare -> FADD -> branch out, so the next load is issued only after
// the FADD has waited for the previous one. One 128-byte load in flight per
// warp, where the plain loop keeps four (its SASS issues four LDGs, then four
// FADDs). docs/measurements/lab2-3.md:15 and :25 measured exactly this on an
// H200: 2511 GB/s against the plain loop's 4372, "#pragma unroll 4 halved the
// warp-per-row float sums".
//
// Expected now: step3.rows_speed below full. On an H200 the ratio is 1.74
// (15 x (3 - 1.74) / 1.75 = 10.8 of 15, points.py earned()). On the H100 that
// grades, a latency-bound kernel loses less to a slower DRAM: 16384 warps of
// one 128-byte load each, ~1 MB in flight at ~450 ns, about 2.3-2.5 TB/s
// against the reference's ~3.0 (README lab 2, "Expected results"): 1.2-1.35x,
// 13.7-15 of 15. Every other check passes. Total 98.7-100 on an H100, ~95.8 on
// an H200. Confidence: moderate on the mechanism, low on the H100 figure.
// Correct verdict: the same (the kernel is slower); but the lab's guide should
// say so, since its measurements already show it and lab 3 recommends the pragma.

#include "lab2.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

namespace lab2 {

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kWarp = 32;
constexpr unsigned kFull = 0xffffffffu;

unsigned blocks_for(std::size_t threads, unsigned per_block) {
  return static_cast<unsigned>((threads + per_block - 1) / per_block);
}

}  // namespace

// ---- Step 1 ---------------------------------------------------------------

__global__ void row_per_thread_kernel(const float* matrix, float* sums, std::size_t rows, std::size_t cols) {
  const std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r < rows) {
    float total = 0.0f;
    const float* row = matrix + r * cols;
    for (std::size_t c = 0; c < cols; ++c) total += row[c];
    sums[r] = total;
  }
}

__global__ void column_per_thread_kernel(const float* matrix, float* sums, std::size_t rows, std::size_t cols) {
  const std::size_t c = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < cols) {
    float total = 0.0f;
    for (std::size_t r = 0; r < rows; ++r) total += matrix[r * cols + c];
    sums[c] = total;
  }
}

void row_sums_thread_per_row(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                             cudaStream_t stream) {
  if (rows == 0) return;
  row_per_thread_kernel<<<blocks_for(rows, kBlock), kBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

void column_sums_thread_per_column(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                                   cudaStream_t stream) {
  if (cols == 0) return;
  column_per_thread_kernel<<<blocks_for(cols, kBlock), kBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 2 ---------------------------------------------------------------

int sectors_per_request(Access access) {
  switch (access) {
    case Access::consecutive: return 4;        // 32 floats = 128 bytes, one aligned line
    case Access::offset_by_two: return 5;      // straddles two lines: 1 sector of one, 4 of the next
    case Access::same_address: return 1;
    case Access::random: return 32;
    case Access::row_per_thread: return 32;    // each thread a different row, 64 KiB apart
    case Access::column_per_thread: return 4;
  }
  return 0;
}

// ---- Step 3 ---------------------------------------------------------------

// One warp per row; lane l reads columns l, l + 32, ... (128 contiguous bytes per step).
__global__ void warp_row_sums_kernel(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t rows,
                                     std::size_t cols) {
  const std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (row >= rows) return;  // whole warps only
  const float* line = matrix + row * cols;
  float total = 0.0f;
#pragma unroll 4
  for (std::size_t c = lane; c < cols; c += kWarp) total += line[c];
  for (unsigned offset = kWarp / 2; offset > 0; offset /= 2) total += __shfl_down_sync(kFull, total, offset);
  if (lane == 0) sums[row] = total;
}

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  warp_row_sums_kernel<<<blocks_for(rows * kWarp, kBlock), kBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

// Block (32 columns) x (8 row lanes); blockIdx.y picks a chunk of rows.
constexpr unsigned kColumnsPerBlock = 32;
constexpr unsigned kRowLanes = kBlock / kColumnsPerBlock;

__global__ void chunk_column_sums_kernel(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t rows,
                                         std::size_t cols, std::size_t chunk_rows) {
  __shared__ float partial[kRowLanes][kColumnsPerBlock];
  const unsigned x = threadIdx.x % kColumnsPerBlock;
  const unsigned lane = threadIdx.x / kColumnsPerBlock;
  const std::size_t col = static_cast<std::size_t>(blockIdx.x) * kColumnsPerBlock + x;
  const std::size_t begin = blockIdx.y * chunk_rows;
  const std::size_t end = begin + chunk_rows < rows ? begin + chunk_rows : rows;
  float total = 0.0f;
  if (col < cols) {
    for (std::size_t r = begin + lane; r < end; r += kRowLanes) total += matrix[r * cols + col];
  }
  partial[lane][x] = total;
  __syncthreads();
  if (lane == 0 && col < cols) {
    float column_total = 0.0f;
    for (unsigned k = 0; k < kRowLanes; ++k) column_total += partial[k][x];
    atomicAdd(sums + col, column_total);
  }
}

void column_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (cols == 0) return;
  MEMLAB_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));
  if (rows == 0) return;
  const std::size_t tiles = (cols + kColumnsPerBlock - 1) / kColumnsPerBlock;
  // About a dozen blocks per SM in all, chunks of at least 32 rows.
  const std::size_t target = 12 * static_cast<std::size_t>(memlab::multiprocessor_count());
  std::size_t chunks = (target + tiles - 1) / tiles;
  const std::size_t most_chunks = rows / 32 > 0 ? rows / 32 : 1;
  if (chunks > most_chunks) chunks = most_chunks;
  if (chunks > 65535) chunks = 65535;
  const std::size_t chunk_rows = (rows + chunks - 1) / chunks;
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>((rows + chunk_rows - 1) / chunk_rows));
  chunk_column_sums_kernel<<<grid, kBlock, 0, stream>>>(matrix, sums, rows, cols, chunk_rows);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab2
