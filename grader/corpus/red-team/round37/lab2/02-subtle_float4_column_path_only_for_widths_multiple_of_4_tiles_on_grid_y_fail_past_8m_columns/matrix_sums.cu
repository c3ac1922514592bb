// Red team 37, lab 2, file 02 (subtle: a float4 column path, taken only when cols is a multiple of
// 4, puts its 128-column tiles on grid y: wrong past 8,388,480 columns, e.g. 1 x 8,388,608 = 33.5
// MB; every large shape that reaches the scalar path's limits has an odd width). The reference,
// except that column_sums, where every row starts 16-byte aligned (cols % 4 == 0), reads float4:
// a warp's 32 lanes read 32 float4 (128 columns, 512 contiguous bytes) of one row, 8 row lanes a
// block; chunks of 256 rows on grid x (the tall check's hint), tiles of 128 columns on grid y.
// Other widths take the reference's scalar kernel unchanged (tiles on x, chunks clamped on y).
//
// The story: the student wrote both paths with the tiles on y after the tall hint; the wide check
// (2 x 16777249, odd: the scalar path) failed with "put the tiles of columns on x"; they fixed the
// kernel that failed and the grader passed.
//
// The bug: gridDim.y may be at most 65535; ceil(cols / 128) passes it at cols > 8,388,480 with
// cols % 4 == 0: 1 x 8,388,608 or 2 x 10,000,000 fail to launch (cudaErrorInvalidConfiguration).
//
// Why no check sees it. The vector path runs only where cols % 4 == 0: step 3's shapes with widths
// 1000 and 2048 (at most 16 tiles), the timing matrix (16384: 128 tiles), and the tall shape
// 67108897 x 8 (one tile; its 262145 chunks are on x, which is fine). The wide shape
// (kWideForColumns, 2 x 16777249) and the square (65537) have odd widths, so their launches are
// the scalar kernel's, which is right. A width chosen odd to catch tails (red team 30) means the
// large shapes never see an aligned-only path.
// Speed: at 16384 x 16384 the float4 path: 64 chunks x 128 tiles = 8192 blocks, each thread 32
// float4 loads, 1M atomicAdds in all (4 per column per chunk): memory-bound, at least the
// reference's speed.
//
// Edits to solutions/lab2_coalescing/matrix_sums.cu: (1) column_sums_float4_kernel; (2) column_sums
// launches it on grid(ceil(rows / 256), ceil(cols / 128)) where cols % 4 == 0, else the reference's
// launch.
//
// Predicted now: 100 (step3.columns 15, step3.columns_speed 20, ratio about 1 or below).
// Correct: step3.columns 0 (85): a launch error on a 33.5 MB matrix the header allows.
// Confidence: high (prediction; speed not measured); high (verdict). Fix: a second wide shape whose
// width is a multiple of 4 (2 x 67108896 would also catch 1024-column tiles, file 01), or one wide
// shape of each parity.

// Lab 2 reference solution: memory coalescing with matrix row and column sums.
//
// Same interface as labs/lab2_coalescing/matrix_sums.cu (declared in lab2.cuh).
// The grader runs it beside the student's file and compares the two.

#include "lab2.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>

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

// A block covers kTileColumns neighbouring columns and one chunk of rows.
constexpr int kTileColumns = 32;                               // one warp's width: coalesced loads
constexpr int kRowLanes = kThreadsPerBlock / kTileColumns;     // threads down each column in a block

// Memory pattern: thread (column_in_tile, row_lane) of a block sums rows
// first + row_lane, first + row_lane + 8, ... of one column. The 32 threads of
// a warp share row_lane and take 32 neighbouring columns, so each load is 128
// contiguous bytes. Splitting the rows into chunks gives cols / 32 * chunks
// blocks, enough to fill the GPU even when there are few columns. Each block
// adds its 8 partial sums per column in shared memory and then adds the result
// to sums[col] with one atomicAdd: chunks of the same column meet there.
__global__ void column_sums_split_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                         std::size_t rows, std::size_t cols, std::size_t rows_per_chunk) {
  __shared__ float partial[kRowLanes][kTileColumns];
  const unsigned column_in_tile = threadIdx.x % kTileColumns;
  const unsigned row_lane = threadIdx.x / kTileColumns;
  const std::size_t col = blockIdx.x * static_cast<std::size_t>(kTileColumns) + column_in_tile;
  const std::size_t first = blockIdx.y * rows_per_chunk;
  const std::size_t end = first + rows_per_chunk < rows ? first + rows_per_chunk : rows;
  float sum = 0.0f;
  if (col < cols) {
    for (std::size_t r = first + row_lane; r < end; r += kRowLanes) sum += matrix[r * cols + col];
  }
  partial[row_lane][column_in_tile] = sum;
  __syncthreads();  // every partial sum written before row lane 0 reads them
  if (row_lane == 0 && col < cols) {
    float total = 0.0f;
    for (int lane = 0; lane < kRowLanes; ++lane) total += partial[lane][column_in_tile];
    atomicAdd(&sums[col], total);
  }
}

// Edit (1): float4 column sums for widths that are a multiple of 4 (every row 16-byte aligned).
// A warp's 32 lanes take 32 neighbouring float4 of one row (128 columns, 512 contiguous bytes);
// 8 row lanes a block. Chunks of rows on x (the tall check's hint), tiles of 128 columns on y.
constexpr int kQuadsPerTile = 32;
constexpr int kQuadRowLanes = kThreadsPerBlock / kQuadsPerTile;
constexpr std::size_t kVectorChunkRows = 256;

__global__ void column_sums_float4_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                          std::size_t rows, std::size_t cols) {
  __shared__ float4 partial[kQuadRowLanes][kQuadsPerTile];
  const unsigned quad_in_tile = threadIdx.x % kQuadsPerTile;
  const unsigned row_lane = threadIdx.x / kQuadsPerTile;
  const std::size_t quads = cols / 4;
  const std::size_t quad = blockIdx.y * static_cast<std::size_t>(kQuadsPerTile) + quad_in_tile;
  const std::size_t first = blockIdx.x * kVectorChunkRows;
  const std::size_t end = first + kVectorChunkRows < rows ? first + kVectorChunkRows : rows;
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (quad < quads) {
    for (std::size_t r = first + row_lane; r < end; r += kQuadRowLanes) {
      const float4 v = reinterpret_cast<const float4*>(matrix + r * cols)[quad];
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
  }
  partial[row_lane][quad_in_tile] = sum;
  __syncthreads();  // every partial sum written before row lane 0 reads them
  if (row_lane == 0 && quad < quads) {
    float4 total = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int lane = 0; lane < kQuadRowLanes; ++lane) {
      total.x += partial[lane][quad_in_tile].x;
      total.y += partial[lane][quad_in_tile].y;
      total.z += partial[lane][quad_in_tile].z;
      total.w += partial[lane][quad_in_tile].w;
    }
    float* out = sums + quad * 4;
    atomicAdd(out + 0, total.x);
    atomicAdd(out + 1, total.y);
    atomicAdd(out + 2, total.z);
    atomicAdd(out + 3, total.w);
  }
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
  MEMLAB_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));  // the blocks' atomicAdds start from 0
  if (rows == 0) return;
  if (cols % 4 == 0) {
    // Edit (2): the float4 path, chunks of 256 rows on x and tiles of 128 columns on y.
    const std::size_t chunks = (rows + kVectorChunkRows - 1) / kVectorChunkRows;
    const std::size_t quad_tiles = (cols / 4 + kQuadsPerTile - 1) / kQuadsPerTile;
    const dim3 grid(static_cast<unsigned>(chunks), static_cast<unsigned>(quad_tiles));
    column_sums_float4_kernel<<<grid, kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols);
    MEMLAB_CHECK_LAUNCH();
    return;
  }
  // Aim for about 16 blocks per SM, two waves of the 8 that fit at once, so that
  // DRAM always has loads in flight; never chunks of fewer than 64 rows.
  const std::size_t column_tiles = (cols + kTileColumns - 1) / kTileColumns;
  const std::size_t wanted_blocks = std::size_t{16} * memlab::multiprocessor_count();
  const std::size_t chunks = std::clamp<std::size_t>(wanted_blocks / column_tiles, 1,
                                                     std::max<std::size_t>(1, rows / 64));
  const std::size_t rows_per_chunk = (rows + chunks - 1) / chunks;
  const dim3 grid(static_cast<unsigned>(column_tiles), static_cast<unsigned>(chunks));
  column_sums_split_kernel<<<grid, kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols, rows_per_chunk);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab2
