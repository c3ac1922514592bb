// Red team 37, lab 2, file 04 (subtle: the column number is an int, in step 1's thread per column
// and step 3's split kernel; offsets stay std::size_t (r * cols + col, r a std::size_t), so the
// 2^32 check passes; the column number wraps past 2^31 columns, which no shape reaches). The
// reference, except `const int col = ...` in the two column kernels.
//
// The bug: blockIdx.x * blockDim.x + threadIdx.x (unsigned) converted to int is negative from
// column 2^31 on; `col >= cols` compares it as a huge std::size_t, so those threads return and
// sums[2^31..cols-1] are never written: a 1 x 2,147,483,681 matrix (8.6 GB of float, half the
// square's 17.2 GB) is wrong. Legal by lab2.cuh (std::size_t sizes; the new wide hint even says
// "number columns in std::size_t").
//
// Why no check sees it. The widest shape is now 2 x 16777249 (2^24 + 33 columns); the square has
// 65537. Offsets are computed in std::size_t because r is one, so the 65537 x 65537 check is
// right. The same class as lab 5's round 36 file 01 (a 32-bit thread number wrapping past 2^29
// rows, left open), here in the commonest way students write a column number.
// Speed: unchanged from the reference.
//
// Edits to solutions/lab2_coalescing/matrix_sums.cu: (1) column_sums_thread_per_column_kernel:
// `const int col = blockIdx.x * blockDim.x + threadIdx.x;` (2) column_sums_split_kernel: `const int
// col = blockIdx.x * kTileColumns + column_in_tile;`.
//
// Predicted now: 100.
// Correct: step1.columns 0 and step3.columns 0 (75) if the header's std::size_t sizes are meant up
// to what an 80 GB GPU holds; 100 if the course accepts 2^31 columns as the limit, as it accepted
// 2^29 rows in lab 5.
// Confidence: high (prediction); medium (verdict: the lead's call). Fix if wanted: column sums on
// 1 x (2^31 + 33) (8.6 GB matrix + 8.6 GB of sums, a copy of 8.6 GB of sums to the host; about as
// costly as the square) would also catch any tile of up to 32768 columns on grid y.

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
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // Edit (1)
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
  const int col = blockIdx.x * kTileColumns + column_in_tile;  // Edit (2)
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
