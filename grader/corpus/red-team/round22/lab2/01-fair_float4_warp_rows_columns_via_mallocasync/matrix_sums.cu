// Lab 2: row and column sums. Step 3's rows: a warp per row, float4 loads where
// the rows are 16-byte aligned. Step 3's columns: partial sums of row chunks into
// a scratch buffer taken from the stream-ordered allocator, then one pass over
// the chunks; the scratch goes back to the pool on the same stream.

#include "lab2.cuh"

#include <memlab/cuda_check.cuh>

#include <algorithm>
#include <cstdint>

namespace lab2 {

namespace {

constexpr int kThreads = 256;
constexpr std::size_t kRowsPerChunk = 128;
constexpr unsigned kAll = 0xffffffffu;

unsigned blocks(std::size_t items, int per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

__global__ void one_thread_per_row(const float* m, float* sums, std::size_t rows, std::size_t cols) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (std::size_t c = 0; c < cols; ++c) s += m[r * cols + c];
  sums[r] = s;
}

__global__ void one_thread_per_column(const float* m, float* sums, std::size_t rows, std::size_t cols) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (std::size_t r = 0; r < rows; ++r) s += m[r * cols + c];
  sums[c] = s;
}

template <bool kVector>
__global__ void warp_rows(const float* __restrict__ m, float* __restrict__ sums, std::size_t rows, std::size_t cols) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x / 32) + threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* line = m + row * cols;
  float s = 0.0f;
  if (kVector) {
    const float4* quads = reinterpret_cast<const float4*>(line);
    for (std::size_t q = lane; q < cols / 4; q += 32) {
      const float4 v = __ldg(quads + q);
      s += (v.x + v.y) + (v.z + v.w);
    }
  } else {
    for (std::size_t c = lane; c < cols; c += 32) s += __ldg(line + c);
  }
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(kAll, s, off);
  if (lane == 0) sums[row] = s;
}

__global__ void column_chunks(const float* __restrict__ m, float* __restrict__ partial, std::size_t rows,
                              std::size_t cols) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c >= cols) return;
  const std::size_t first = blockIdx.y * kRowsPerChunk;
  const std::size_t last = rows < first + kRowsPerChunk ? rows : first + kRowsPerChunk;
  float s = 0.0f;
  for (std::size_t r = first; r < last; ++r) s += m[r * cols + c];
  partial[blockIdx.y * cols + c] = s;
}

__global__ void add_chunks(const float* __restrict__ partial, float* __restrict__ sums, std::size_t chunks,
                           std::size_t cols) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (std::size_t k = 0; k < chunks; ++k) s += partial[k * cols + c];
  sums[c] = s;
}

}  // namespace

void row_sums_thread_per_row(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                             cudaStream_t stream) {
  if (rows == 0) return;
  one_thread_per_row<<<blocks(rows, kThreads), kThreads, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK(cudaGetLastError());
}

void column_sums_thread_per_column(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                                   cudaStream_t stream) {
  if (cols == 0) return;
  one_thread_per_column<<<blocks(cols, kThreads), kThreads, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK(cudaGetLastError());
}

int sectors_per_request(Access access) {
  switch (access) {
    case Access::consecutive: return 4;
    case Access::offset_by_two: return 5;
    case Access::same_address: return 1;
    case Access::random: return 32;
    case Access::row_per_thread: return 32;
    case Access::column_per_thread: return 4;
  }
  return 0;
}

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  const bool vector = cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(matrix) % 16 == 0;
  const unsigned grid = blocks(rows, kThreads / 32);
  if (vector) {
    warp_rows<true><<<grid, kThreads, 0, stream>>>(matrix, sums, rows, cols);
  } else {
    warp_rows<false><<<grid, kThreads, 0, stream>>>(matrix, sums, rows, cols);
  }
  MEMLAB_CHECK(cudaGetLastError());
}

void column_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (cols == 0) return;
  const std::size_t chunks = std::max<std::size_t>(1, (rows + kRowsPerChunk - 1) / kRowsPerChunk);
  float* partial = nullptr;
  MEMLAB_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&partial), chunks * cols * sizeof(float), stream));
  const dim3 grid(blocks(cols, kThreads), static_cast<unsigned>(chunks));
  column_chunks<<<grid, kThreads, 0, stream>>>(matrix, partial, rows, cols);
  MEMLAB_CHECK(cudaGetLastError());
  add_chunks<<<blocks(cols, kThreads), kThreads, 0, stream>>>(partial, sums, chunks, cols);
  MEMLAB_CHECK(cudaGetLastError());
  MEMLAB_CHECK(cudaFreeAsync(partial, stream));
}

}  // namespace lab2
