// Red team 27, lab 2, file 02 (fair): step 3's other classic shapes.
//  - Row sums: one block of 128 threads per row (thread t takes columns t,
//    t + 128, ...: each warp reads 128 contiguous bytes), then a tree in shared
//    memory with a barrier per level instead of warp shuffles.
//  - Column sums: 2D blocks of 32 x 8 threads, blockIdx.y a chunk of rows; each
//    of the 8 row lanes adds its own partial sum to sums[col] with atomicAdd
//    (no shared-memory stage); chunks sized from the SM count.
//
// Expected: 100, moderately sure (the two speed checks are the risk).
//  - step3.rows_speed: 16384 blocks of 4 warps, 16 blocks per SM (64 warps,
//    a full SM) in 7.8 waves. Each thread keeps several loads in flight
//    (nvcc unrolls the plain loop by 4), 1 KB per warp-step; the 7-level tree
//    costs ~1-2 us at the end of each 64 KB row, hidden by the other 15 blocks of
//    the SM. Expected within 1.1x of the warp-per-row reference.
//  - step3.columns_speed: 8 atomics per column per chunk instead of 1: at
//    16384 x 16384 with 4 chunks that is 0.5 M atomics on 16384 addresses, a few
//    microseconds of L2 work against ~0.36 ms of reading. Within 1.05x.
//  - correctness: shapes 1 x 1 to 100001 x 3 (grader.cpp:39-41); 100001 rows
//    are 100001 blocks in x (no 65535 limit), 3 chunks at most in y.

#include "lab2.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

namespace lab2 {

namespace {

constexpr int kRowThreads = 128;
constexpr int kStep1Threads = 256;
constexpr int kTileWidth = 32;   // columns per column-sum block: one warp
constexpr int kTileHeight = 8;   // row lanes per column-sum block

unsigned ceil_div(std::size_t a, std::size_t b) { return static_cast<unsigned>((a + b - 1) / b); }

}  // namespace

__global__ void sum_each_row_kernel(const float* matrix, float* sums, std::size_t rows, std::size_t cols) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (std::size_t c = 0; c < cols; ++c) s += matrix[r * cols + c];
  sums[r] = s;
}

__global__ void sum_each_column_kernel(const float* matrix, float* sums, std::size_t rows, std::size_t cols) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (std::size_t r = 0; r < rows; ++r) s += matrix[r * cols + c];
  sums[c] = s;
}

void row_sums_thread_per_row(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                             cudaStream_t stream) {
  if (rows == 0) return;
  sum_each_row_kernel<<<ceil_div(rows, kStep1Threads), kStep1Threads, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

void column_sums_thread_per_column(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                                   cudaStream_t stream) {
  if (cols == 0) return;
  sum_each_column_kernel<<<ceil_div(cols, kStep1Threads), kStep1Threads, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

int sectors_per_request(Access access) {
  // 32 threads x 4 bytes; a sector is 32 bytes.
  if (access == Access::consecutive) return 4;
  if (access == Access::offset_by_two) return 5;
  if (access == Access::same_address) return 1;
  if (access == Access::random) return 32;
  if (access == Access::row_per_thread) return 32;
  if (access == Access::column_per_thread) return 4;
  return 0;
}

// One block per row: coalesced strided loads, then a shared-memory tree.
__global__ void block_row_sums_kernel(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t cols) {
  __shared__ float partial[kRowThreads];
  const float* line = matrix + static_cast<std::size_t>(blockIdx.x) * cols;
  float s = 0.0f;
  for (std::size_t c = threadIdx.x; c < cols; c += kRowThreads) s += line[c];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int half = kRowThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  block_row_sums_kernel<<<static_cast<unsigned>(rows), kRowThreads, 0, stream>>>(matrix, sums, cols);
  MEMLAB_CHECK_LAUNCH();
}

// threadIdx.x: the column in a tile of 32; threadIdx.y: the row lane.
__global__ void lane_atomic_column_sums_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                              std::size_t rows, std::size_t cols, std::size_t chunk) {
  const std::size_t col = blockIdx.x * static_cast<std::size_t>(kTileWidth) + threadIdx.x;
  if (col >= cols) return;  // no barrier below: leaving early is fine
  const std::size_t first = blockIdx.y * chunk;
  const std::size_t last = first + chunk < rows ? first + chunk : rows;
  float s = 0.0f;
  for (std::size_t r = first + threadIdx.y; r < last; r += kTileHeight) s += matrix[r * cols + col];
  atomicAdd(&sums[col], s);
}

void column_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (cols == 0) return;
  MEMLAB_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));
  if (rows == 0) return;
  const std::size_t tiles = ceil_div(cols, kTileWidth);
  // Aim at 16 blocks per SM; never fewer than 64 rows per chunk.
  const std::size_t wanted = 16 * static_cast<std::size_t>(memlab::multiprocessor_count());
  std::size_t chunks = wanted > tiles ? wanted / tiles : 1;
  const std::size_t chunks_of_64 = rows / 64 > 0 ? rows / 64 : 1;
  if (chunks > chunks_of_64) chunks = chunks_of_64;
  const std::size_t chunk = (rows + chunks - 1) / chunks;
  const dim3 block(kTileWidth, kTileHeight);
  const dim3 grid(static_cast<unsigned>(tiles), ceil_div(rows, chunk));
  lane_atomic_column_sums_kernel<<<grid, block, 0, stream>>>(matrix, sums, rows, cols, chunk);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab2
