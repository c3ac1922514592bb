// Red team 30, lab 2, file 03 (fair, a diagnostic twin): column sums in two passes
// through a scratch buffer from the stream-ordered allocator, with the pool told to
// keep its memory.
//
// Why this file. round22/lab2/01 (fair) summed the columns in two passes through a
// cudaMallocAsync scratch buffer, 128-row chunks (8 MB of partial sums at 16384 x
// 16384), freed with cudaFreeAsync: its columns took 1.86x the reference's time on
// an H100 (run 95, docs/measurements/trusted-grading-h100-2026-11-24/README.md:194),
// unexplained there; it lost ~7 points. Reading its kernels, they move 1 GiB + 16 MB
// and should take ~1.1x. The likely cause is the allocator, not the kernels: the
// device's default memory pool has a release threshold of 0, so at every
// synchronisation (the runner's cudaDeviceSynchronize after each call,
// remote.cu cuda_trouble) it gives its free memory back to the driver, and the next
// call's cudaMallocAsync maps 8 MB of physical memory again, inside the timed call.
//
// What the student did. The same design as round 22's columns (EDIT 2): kernel 1, one
// thread per column and 128-row chunk (blockIdx.y), writes partial sums to the
// scratch; kernel 2, one thread per column, adds the chunks in order (deterministic,
// no atomics, no memset). The scratch comes from cudaMallocAsync on the stream and
// goes back with cudaFreeAsync on the stream. Once, before the first allocation, the
// default pool's release threshold is raised (EDIT 1), as CUDA's programming guide
// ("Stream Ordered Memory Allocator", physical page caching behavior) suggests for
// code that allocates in a loop: the pool then keeps the 8 MB between calls.
// Rows and step 1 are the reference's.
//
// What to learn from a run. If this file's columns_speed is ~1.0-1.1x while round
// 22's file stays at ~1.86x, the cost was the pool's trimming at each call's
// synchronisation, and a fair student using the stream-ordered allocator as
// documented loses points to it (see README flaw 2). If this file is as slow, the
// kernels are to blame and round 22's loss was fair.
//
// Predicted now: 100 (columns_speed 1.0-1.15x), if the trimming explains round 22.
// Correct: 100. Confidence: medium (the cause is inferred, not measured).
// Otherwise: lab 2 reference solution: memory coalescing with matrix row and column sums.
//
// Same interface as labs/lab2_coalescing/matrix_sums.cu (declared in lab2.cuh).
// The grader runs it beside the student's file and compares the two.

#include "lab2.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>
#include <cstdint>

namespace lab2 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kWarpSize = 32;

std::size_t blocks_for(std::size_t threads) { return (threads + kThreadsPerBlock - 1) / kThreadsPerBlock; }

// ---- Step 1: one thread per row or column -------------------------------

// Memory pattern: thread t walks along row t. At each step the 32 threads of a
// warp load from 32 different rows, cols * 4 bytes apart: 32 sectors per
// request, of which 4 bytes each are used. Only `rows` threads run.
__global__ void row_sums_thread_per_row_kernel(const float* matrix, float* sums, std::size_t rows,
                                               std::size_t cols) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (std::size_t c = 0; c < cols; ++c) sum += matrix[row * cols + c];
  sums[row] = sum;
}

// Memory pattern: thread t walks down column t. At each step the 32 threads of
// a warp load 32 neighbouring floats of one row: 128 bytes, 4 sectors, every
// byte used. Coalesced, but still only `cols` threads run.
__global__ void column_sums_thread_per_column_kernel(const float* matrix, float* sums,
                                                     std::size_t rows, std::size_t cols) {
  const std::size_t col = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (col >= cols) return;
  float sum = 0.0f;
  for (std::size_t r = 0; r < rows; ++r) sum += matrix[r * cols + col];
  sums[col] = sum;
}

// ---- Step 3: coalesced and parallel -------------------------------------

constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

// Memory pattern: one warp per row. Lane l loads columns l, l + 32, l + 64, ...,
// so at every step the warp loads 32 neighbouring floats of its row (4 sectors,
// every byte used), and rows / 8 blocks keep every SM busy. The 32 partial sums
// are then added across the warp with shuffles, without touching memory.
__global__ void row_sums_warp_per_row_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                             std::size_t rows, std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;  // the whole warp leaves together: the shuffles below need all 32 lanes
  const float* line = matrix + row * cols;
  float sum = 0.0f;
  for (std::size_t c = lane; c < cols; c += kWarpSize) sum += line[c];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) sums[row] = sum;
}

// RED TEAM 30 EDIT 2: column sums in two passes through a scratch buffer.
constexpr std::size_t kRowsPerChunk = 128;
constexpr std::size_t kMostChunks = 65535;  // gridDim.y's limit

// Pass 1: thread c of the grid sums one chunk of rows (128, more past 8.4 million rows)
// of column c (a warp reads 128 contiguous bytes of a row per step) into partial[chunk][c].
__global__ void column_chunks_kernel(const float* __restrict__ matrix, float* __restrict__ partial,
                                     std::size_t rows, std::size_t cols, std::size_t rows_per_chunk) {
  const std::size_t col = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (col >= cols) return;
  const std::size_t first = blockIdx.y * rows_per_chunk;
  const std::size_t end = first + rows_per_chunk < rows ? first + rows_per_chunk : rows;
  float sum = 0.0f;
  for (std::size_t r = first; r < end; ++r) sum += matrix[r * cols + col];
  partial[blockIdx.y * cols + col] = sum;
}

// Pass 2: thread c adds the chunks' partial sums of column c, in order.
__global__ void add_chunks_kernel(const float* __restrict__ partial, float* __restrict__ sums, std::size_t chunks,
                                  std::size_t cols) {
  const std::size_t col = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (col >= cols) return;
  float sum = 0.0f;
  for (std::size_t k = 0; k < chunks; ++k) sum += partial[k * cols + col];
  sums[col] = sum;
}

// RED TEAM 30 EDIT 1: the default pool keeps the memory freed to it, instead of giving
// it back to the driver at every synchronisation.
void keep_pool_memory() {
  static bool done = false;
  if (done) return;
  int device = 0;
  MEMLAB_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  MEMLAB_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t keep = UINT64_MAX;
  MEMLAB_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  done = true;
}

}  // namespace

void row_sums_thread_per_row(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                             cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_thread_per_row_kernel<<<blocks_for(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

void column_sums_thread_per_column(const float* matrix, float* sums, std::size_t rows,
                                   std::size_t cols, cudaStream_t stream) {
  if (cols == 0) return;
  column_sums_thread_per_column_kernel<<<blocks_for(cols), kThreadsPerBlock, 0, stream>>>(matrix, sums,
                                                                                          rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

int sectors_per_request(Access access) {
  // A sector is 32 bytes: 8 floats. The warp asks for 32 floats; what counts is
  // how many different sectors their addresses fall in.
  switch (access) {
    case Access::consecutive: return 4;         // 128 contiguous, aligned bytes: sectors 0-3 of one line
    case Access::offset_by_two: return 5;       // 2 floats in the sector before, 30 in the next four
    case Access::same_address: return 1;        // one float, one sector, broadcast to all threads
    case Access::random: return 32;             // in 400 MB, two threads almost never share a sector
    case Access::row_per_thread: return 32;     // rows are 64 KiB apart: one sector per thread
    case Access::column_per_thread: return 4;   // 32 neighbouring floats of one row
  }
  return 0;
}

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  const std::size_t blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  row_sums_warp_per_row_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

void column_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                 cudaStream_t stream) {
  if (cols == 0) return;
  // RED TEAM 30 EDIT 2: two passes through a stream-ordered scratch buffer.
  keep_pool_memory();
  const std::size_t rows_per_chunk = std::max(kRowsPerChunk, (rows + kMostChunks - 1) / kMostChunks);
  const std::size_t chunks = std::max<std::size_t>(1, (rows + rows_per_chunk - 1) / rows_per_chunk);
  float* partial = nullptr;
  MEMLAB_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&partial), chunks * cols * sizeof(float), stream));
  const dim3 grid(static_cast<unsigned>(blocks_for(cols)), static_cast<unsigned>(chunks));
  column_chunks_kernel<<<grid, kThreadsPerBlock, 0, stream>>>(matrix, partial, rows, cols, rows_per_chunk);
  MEMLAB_CHECK_LAUNCH();
  add_chunks_kernel<<<blocks_for(cols), kThreadsPerBlock, 0, stream>>>(partial, sums, chunks, cols);
  MEMLAB_CHECK_LAUNCH();
  MEMLAB_CHECK(cudaFreeAsync(partial, stream));
}

}  // namespace lab2
