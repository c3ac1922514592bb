// Red team 30, lab 4, file 02 (subtle): choose_tile_width asks that the tiles fit
// with room to spare: `<` where the header says they must fit (`<=`).
//
// What the student did. One character (EDIT): the shared-memory test reads
//     2 * tile * tile * sizeof(float) < device.sharedMemPerBlock
// The thread test stays `tile * tile <= device.maxThreadsPerBlock` (a 32 x 32 block of
// 1024 threads is the textbook's own example). Everything else is the reference.
//
// Why it is a bug. lab4.cuh: "two tile_width x tile_width float tiles fit in the
// shared memory a block may use (device.sharedMemPerBlock)", and the guide spells it
// `2 * tile * tile * sizeof(float) <= device.sharedMemPerBlock`. On a device whose
// block may use exactly 8 KB (or 2 KB, or 512 B) the student picks 16 (8, 0) where
// the rule gives 32 (16, 8).
//
// What the grader sees. step4.tile_choice (grader.cpp:143-171) tries five made-up
// devices, 48 KB or 4 KB of shared memory per block, and the GPU itself (48 KB):
// the thread limits are met at equality in three of them (1024, 256 and 64 threads
// for tiles 32, 16 and 8, so `<` there fails), but no device has sharedMemPerBlock
// equal to two tiles' bytes (512, 2048 or 8192), so `<` and `<=` agree on all six.
//
// Predicted now: 100. Correct: step4.tile_choice 0, 95 in all. Confidence: high.
// Otherwise: lab 4 reference solution: naive vs shared-memory tiled matrix multiply.
// Same functions as labs/lab4_matmul/matmul.cu; lab4.cuh documents them.

#include "lab4.cuh"

#include <memlab/cuda_check.cuh>

#include <cstddef>

namespace lab4 {

namespace {

int blocks_for(int width, int tile) { return (width + tile - 1) / tile; }

}  // namespace

// ---- Step 1: one thread per element of c ------------------------------------

// Memory pattern: the 16 threads of a block row read the same a[row][k] (one
// broadcast), and consecutive threads read consecutive b[k][col] (coalesced).
// Every element of a and b is read by width threads; only the caches stop
// that from being width times the matrices' bytes from DRAM.
__global__ void matmul_naive_kernel(const float* a, const float* b, float* c, int width) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= width || col >= width) return;
  float sum = 0.0f;
  for (int k = 0; k < width; ++k) sum += a[row * width + k] * b[k * width + col];
  c[row * width + col] = sum;
}

void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  constexpr int kSide = 16;
  const dim3 block(kSide, kSide);
  const dim3 grid(blocks_for(width, kSide), blocks_for(width, kSide));
  matmul_naive_kernel<<<grid, block, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Steps 2 and 3: tiles in shared memory ------------------------------------

// Memory pattern: per phase, each thread copies one element of a and one of b
// into shared memory (coalesced rows of both), then reads kTileWidth of each
// from shared memory. Global traffic falls by a factor of kTileWidth.
__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int width) {
  __shared__ float a_tile[kTileWidth][kTileWidth];
  __shared__ float b_tile[kTileWidth][kTileWidth];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * kTileWidth + ty;
  const int col = blockIdx.x * kTileWidth + tx;
  const int phases = (width + kTileWidth - 1) / kTileWidth;  // rounded up: the last tile may be partial

  float sum = 0.0f;
  for (int phase = 0; phase < phases; ++phase) {
    // Outside the matrix, load 0: it adds nothing to the sum.
    const int a_col = phase * kTileWidth + tx;
    const int b_row = phase * kTileWidth + ty;
    a_tile[ty][tx] = (row < width && a_col < width) ? a[row * width + a_col] : 0.0f;
    b_tile[ty][tx] = (b_row < width && col < width) ? b[b_row * width + col] : 0.0f;
    __syncthreads();  // read after write: every element of both tiles is in place
    for (int k = 0; k < kTileWidth; ++k) sum += a_tile[ty][k] * b_tile[k][tx];
    __syncthreads();  // write after read: nobody overwrites a tile another thread still reads
  }
  if (row < width && col < width) c[row * width + col] = sum;
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 block(kTileWidth, kTileWidth);
  const dim3 grid(blocks_for(width, kTileWidth), blocks_for(width, kTileWidth));
  matmul_tiled_kernel<<<grid, block, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 4: the tile width chosen at run time ---------------------------------

int choose_tile_width(const cudaDeviceProp& device) {
  for (int tile : {32, 16, 8}) {
    const bool block_allowed = tile * tile <= device.maxThreadsPerBlock;
    const bool tiles_fit = 2 * tile * tile * sizeof(float) < device.sharedMemPerBlock;  // RED TEAM 30 EDIT
    if (block_allowed && tiles_fit) return tile;
  }
  return 0;
}

// The same memory pattern as matmul_tiled_kernel; both tiles share one array
// whose size the launch gives: a's tile first, b's right after it.
__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int width, int tile) {
  extern __shared__ float tiles[];
  float* a_tile = tiles;
  float* b_tile = tiles + tile * tile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;
  const int phases = (width + tile - 1) / tile;

  float sum = 0.0f;
  for (int phase = 0; phase < phases; ++phase) {
    const int a_col = phase * tile + tx;
    const int b_row = phase * tile + ty;
    a_tile[ty * tile + tx] = (row < width && a_col < width) ? a[row * width + a_col] : 0.0f;
    b_tile[ty * tile + tx] = (b_row < width && col < width) ? b[b_row * width + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < tile; ++k) sum += a_tile[ty * tile + k] * b_tile[k * tile + tx];
    __syncthreads();
  }
  if (row < width && col < width) c[row * width + col] = sum;
}

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  const dim3 block(tile_width, tile_width);
  const dim3 grid(blocks_for(width, tile_width), blocks_for(width, tile_width));
  const std::size_t shared_bytes = 2 * tile_width * tile_width * sizeof(float);
  matmul_dynamic_kernel<<<grid, block, shared_bytes, stream>>>(a, b, c, width, tile_width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 5: the seeded bugs ---------------------------------------------------

Detector caught_by(SeedBug bug) {
  switch (bug) {
    case SeedBug::plus_for_times: return Detector::step2_check;              // wrong at every width
    case SeedBug::phases_by_integer_division: return Detector::step3_check;  // loses the partial last tile
    case SeedBug::no_zero_fill: return Detector::step3_check;                // stale values in the partial tile
    case SeedBug::unguarded_store: return Detector::step3_check;             // writes past the end of c
    case SeedBug::no_barrier_after_loading: return Detector::racecheck;
    case SeedBug::no_barrier_after_computing: return Detector::racecheck;
  }
  return Detector::step2_check;
}

// ---- Step 6: register tiling -----------------------------------------------------

// Each block computes a kBlockRows x kBlockCols tile of c with 256 threads; each
// thread computes kThreadRows x kThreadCols elements of it, held in registers.
constexpr int kBlockRows = 128;
constexpr int kBlockCols = 128;
constexpr int kStepK = 16;  // columns of a (rows of b) per phase
constexpr int kThreadRows = 8;
constexpr int kThreadCols = 8;
constexpr int kThreadsDown = kBlockRows / kThreadRows;    // 16
constexpr int kThreadsAcross = kBlockCols / kThreadCols;  // 16
constexpr int kFastThreads = kThreadsDown * kThreadsAcross;

// Memory pattern: per phase, the block copies a kBlockRows x kStepK slice of a
// (stored transposed, so a column of it is contiguous) and a kStepK x kBlockCols
// slice of b into shared memory. Each thread then reads kThreadRows values of a
// and kThreadCols of b per k and does kThreadRows x kThreadCols multiply-adds
// with them: 4 FMAs per shared-memory load instead of the tiled kernel's 1/2.
// A thread's elements are strided by the thread grid (row ty + 16 i, column
// tx + 16 j), so a warp's shared-memory reads fall in distinct banks.
__global__ void __launch_bounds__(kFastThreads)
    matmul_fast_kernel(const float* a, const float* b, float* c, int width) {
  // a_slice[k][r] = a[block_row + r][k0 + k]. The padding spreads the copy's
  // writes (16 values of k, 2 of r per warp) over the banks: 2-way conflicts, not 16.
  __shared__ float a_slice[kStepK][kBlockRows + 4];
  __shared__ float b_slice[kStepK][kBlockCols];  // b_slice[k][c] = b[k0 + k][block_col + c]
  const int block_row = blockIdx.y * kBlockRows;
  const int block_col = blockIdx.x * kBlockCols;
  const int tx = threadIdx.x % kThreadsAcross;
  const int ty = threadIdx.x / kThreadsAcross;

  float sum[kThreadRows][kThreadCols] = {};
  for (int k0 = 0; k0 < width; k0 += kStepK) {
    // Consecutive threads take consecutive k in a row of a (32-byte pieces) and
    // consecutive columns in a row of b (whole lines).
    for (int i = threadIdx.x; i < kBlockRows * kStepK; i += kFastThreads) {
      const int r = i / kStepK;
      const int k = i % kStepK;
      const int row = block_row + r;
      const int col = k0 + k;
      a_slice[k][r] = (row < width && col < width) ? a[row * width + col] : 0.0f;
    }
    for (int i = threadIdx.x; i < kStepK * kBlockCols; i += kFastThreads) {
      const int k = i / kBlockCols;
      const int cc = i % kBlockCols;
      const int row = k0 + k;
      const int col = block_col + cc;
      b_slice[k][cc] = (row < width && col < width) ? b[row * width + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kStepK; ++k) {
      float a_values[kThreadRows];
      float b_values[kThreadCols];
#pragma unroll
      for (int i = 0; i < kThreadRows; ++i) a_values[i] = a_slice[k][ty + i * kThreadsDown];
#pragma unroll
      for (int j = 0; j < kThreadCols; ++j) b_values[j] = b_slice[k][tx + j * kThreadsAcross];
#pragma unroll
      for (int i = 0; i < kThreadRows; ++i) {
#pragma unroll
        for (int j = 0; j < kThreadCols; ++j) sum[i][j] += a_values[i] * b_values[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kThreadRows; ++i) {
    const int row = block_row + ty + i * kThreadsDown;
#pragma unroll
    for (int j = 0; j < kThreadCols; ++j) {
      const int col = block_col + tx + j * kThreadsAcross;
      if (row < width && col < width) c[row * width + col] = sum[i][j];
    }
  }
}

void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 grid(blocks_for(width, kBlockCols), blocks_for(width, kBlockRows));
  matmul_fast_kernel<<<grid, kFastThreads, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

BlockTile fast_block_tile() { return {kBlockRows, kBlockCols}; }

}  // namespace lab4
