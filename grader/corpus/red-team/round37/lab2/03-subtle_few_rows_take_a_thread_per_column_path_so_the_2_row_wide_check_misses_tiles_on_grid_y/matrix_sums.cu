// Red team 37, lab 2, file 03 (subtle: round 36's file 02, column tiles of 32 on grid y, plus a
// single-chunk path for matrices of at most 256 rows: the wide check's 2 rows take that path, so
// the tiles on grid y, wrong past 2,097,120 columns, are never launched wide). The reference,
// except that column_sums (a) for rows <= 256, one chunk, calls the step 1 kernel (a thread per
// column, on grid x, writes sums[col] itself: no memset, no atomics); (b) otherwise takes fixed
// chunks of 256 rows on grid x and the 32-column tiles on grid y, as round 36's file 02.
//
// The bug: gridDim.y may be at most 65535. With rows > 256, ceil(cols / 32) passes it at cols >
// 2,097,120: 257 x 2,097,152 (2.2 GB of float) or 300 x 3,000,000 fail to launch
// (cudaErrorInvalidConfiguration). Legal by lab2.cuh.
//
// Why no check sees it. Session 22's wide shape has 2 rows (common/memlab/grading/matrix_sums.hpp,
// kWideForColumns = 2 x 16777249): (a) runs, 65537 blocks on x, right. The shapes with more than
// 256 rows are at most 65537 wide (grid y 2049). A path picked by a small row count is an ordinary
// optimisation (one chunk needs neither the memset nor atomics; the reference itself makes one
// chunk below 128 rows), and any such threshold up to 65537 rows hides the 2D launch from a wide
// shape of 2 rows.
// Speed: at 16384 x 16384 path (b), the blocks of round 36's file 02 (100 in run 156).
//
// Edits to solutions/lab2_coalescing/matrix_sums.cu: round 36's file 02's three edits, and (4)
// column_sums calls column_sums_thread_per_column_kernel when rows <= kRowsPerChunk.
//
// Predicted now: 100 (step3.columns 15, step3.columns_speed 20 at a ratio near 1).
// Correct: step3.columns 0 (85): the same launch error as round 36's file 02, on wide matrices of
// more than 256 rows.
// Confidence: high (prediction); high (verdict). Fix: a wide shape with rows past any plausible
// threshold is costly (1025 x 2097185 is 8.6 GB and catches only 32-column tiles); the general
// answer is in the launches, not the data: the grader already sees each call's kernels (launch
// watch), and could fail a grid whose y or z size grows with cols (or rows) between two shapes
// that differ only there, or require the student's grid y and z to stay below a bound that does
// not depend on the shape.

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

// A block covers kTileColumns neighbouring columns and one chunk of kRowsPerChunk rows.
constexpr int kTileColumns = 32;                               // one warp's width: coalesced loads
constexpr int kRowLanes = kThreadsPerBlock / kTileColumns;     // threads down each column in a block
constexpr int kRowsPerChunk = 256;                             // Edit (1): a fixed chunk, 32 rows a thread

// Memory pattern: thread (column_in_tile, row_lane) of a block sums rows
// first + row_lane, first + row_lane + 8, ... of one column. The 32 threads of
// a warp share row_lane and take 32 neighbouring columns, so each load is 128
// contiguous bytes. Splitting the rows into chunks gives cols / 32 * chunks
// blocks, enough to fill the GPU even when there are few columns. Each block
// adds its 8 partial sums per column in shared memory and then adds the result
// to sums[col] with one atomicAdd: chunks of the same column meet there.
__global__ void column_sums_split_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                         std::size_t rows, std::size_t cols) {
  __shared__ float partial[kRowLanes][kTileColumns];
  const unsigned column_in_tile = threadIdx.x % kTileColumns;
  const unsigned row_lane = threadIdx.x / kTileColumns;
  // Edit (2): rows and chunks along x (the tall check's hint), the column tile on y.
  const std::size_t col = blockIdx.y * static_cast<std::size_t>(kTileColumns) + column_in_tile;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(kRowsPerChunk);
  const std::size_t end = first + kRowsPerChunk < rows ? first + kRowsPerChunk : rows;
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
  MEMLAB_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));  // the blocks' atomicAdds start from 0
  if (rows == 0) return;
  if (rows <= kRowsPerChunk) {
    // Edit (4): one chunk: the step 1 kernel, a thread per column on grid x, already coalesced and
    // writing each sum itself (no memset needed, but the one above is harmless).
    column_sums_thread_per_column_kernel<<<blocks_for(cols), kThreadsPerBlock, 0, stream>>>(matrix, sums,
                                                                                            rows, cols);
    MEMLAB_CHECK_LAUNCH();
    return;
  }
  // Edit (3): one block per 256 rows and 32 columns: the row chunks along x, as the tall check's
  // hint says ("Number rows and chunks along x"), so the column tiles go on the grid's y dimension.
  const std::size_t column_tiles = (cols + kTileColumns - 1) / kTileColumns;
  const std::size_t chunks = (rows + kRowsPerChunk - 1) / kRowsPerChunk;
  const dim3 grid(static_cast<unsigned>(chunks), static_cast<unsigned>(column_tiles));
  column_sums_split_kernel<<<grid, kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab2
