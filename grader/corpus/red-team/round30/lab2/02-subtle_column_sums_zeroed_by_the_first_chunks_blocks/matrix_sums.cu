// Red team 30, lab 2, file 02 (subtle): the column sums are zeroed inside the kernel,
// by the blocks of the first chunk of rows, instead of by a cudaMemsetAsync before it.
//
// What the student did. The reference zeroes sums with cudaMemsetAsync on the stream,
// then every block adds its chunk's partial sums with atomicAdd. The student saves the
// memset: in column_sums_split_kernel, the blocks with blockIdx.y == 0 (the first
// chunk of rows) store 0 to their 32 columns' sums before they start reading (EDIT 1),
// and every block, those included, adds its partial sum with atomicAdd at the end, as
// before. column_sums no longer calls cudaMemsetAsync (EDIT 2), and it launches the
// kernel even for rows == 0, so that the zeros are still written.
// The student's reasoning, in the comment they left: "blockIdx.y == 0 blocks are
// launched first, and they zero the sums before anyone has read a row".
//
// Why it is a bug. CUDA promises nothing about the order in which blocks run: a block
// of chunk k > 0 may add its partial sum before the chunk-0 block of the same columns
// has stored its zero, which then wipes that partial sum out (or, with the grader's
// NaN poison in sums, the order decides whether the sum is NaN). It is a race between
// blocks, which compute-sanitizer's racecheck (shared memory only) does not report
// either.
//
// Why it passes now. The hardware hands out blocks in order of their linear index
// (blockIdx.x first, then blockIdx.y), so the chunk-0 block of a column tile starts
// before every other block of that tile; its zero store is its first global access
// (~100 cycles in), while another block's atomicAdd comes after its loads, a shared
// memory stage and a barrier (~500 cycles at least, milliseconds at the timing size).
// Shapes with one chunk (37 x 1000, 3 x 100001, 65537 x 65537) have no race at all
// (labs/lab2_coalescing/grading/grader.cpp:40-41; the chunk count is the
// reference's, matrix_sums.cu column_sums). The order shake (remote.cu order_shake)
// holds streams before a call, which does not reorder the blocks of one kernel. The
// memset's removal also makes the call ~2 us shorter.
//
// Predicted now: 100 (medium-high: a race the hardware order hides; it could lose
// step3.columns in a run where a chunk-0 block is dispatched late).
// Correct: step3.columns 0 (a race on sums between blocks); the speed check is about
// speed, 85 in all.
// Otherwise: lab 2 reference solution: memory coalescing with matrix row and column sums.
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
  // RED TEAM 30 EDIT 1: no memset before the kernel. blockIdx.y == 0 blocks are
  // launched first, and they zero the sums before anyone has read a row.
  if (blockIdx.y == 0 && row_lane == 0 && col < cols) sums[col] = 0.0f;
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
  // RED TEAM 30 EDIT 2: no cudaMemsetAsync; the first chunk's blocks zero the sums
  // (column_sums_split_kernel). Launched even for rows == 0, so the zeros are written.
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
