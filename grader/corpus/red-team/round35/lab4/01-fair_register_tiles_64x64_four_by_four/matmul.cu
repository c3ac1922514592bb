// Red team 35, lab 4, file 01 (fair, at risk of losing step 6's speed points). The reference,
// except that step 6's register tiling uses the textbook 4 x 4 patch per thread and a 64 x 64
// block tile (256 threads, 16 x 16, strided ownership as the reference's: rows ty + 16 i, columns
// tx + 16 j), the first register-tiled kernel of most courses and of Kirk and Hwu's "thread
// coarsening". Everything else is the reference's kernel with its constants changed.
//
// Why it is fair. lab4.cuh, step 6: "a faster multiply: each thread computes several elements of
// c from values it holds in registers (thread coarsening, register tiling)". This does exactly
// that, 16 multiply-adds per 8 shared-memory loads (the tiled kernel: 1 per 2), with the guide's
// hints (a transposed, padded slice of a; strided rows and columns; bounds checks on each load and
// each store). The guide suggests 8 x 8 with "say" (labs/lab4_matmul/README.md:205).
//
// The check it targets: step6.speed (labs/lab4_matmul/grading/grader.cpp:292-311) times it at
// width 4096 against the reference's 128 x 128 / 8 x 8 kernel, which reaches 29.6 TFLOP/s, 57% of
// cuBLAS (docs/measurements/lab4-5.md), with the same 1.25x limit as every other timed check
// (common/memlab/grading/speed.hpp:23; grader/points/lab4.txt: step6.speed 10 points, full at
// 1.25, none at 3.0). Half the FMAs per shared load and half the block tile's reuse of each global
// load put a 4 x 4 kernel near 55-70% of an 8 x 8 one on current GPUs: 1.4-1.8x the time.
// Correctness is unchanged (kFastWidths 1, 17, 100, 129, 1000, 1024; fast_block_tile {64, 64}).
//
// Edits to solutions/lab4_matmul/matmul.cu: (1) kBlockRows = kBlockCols = 64, kThreadRows =
// kThreadCols = 4 (so 16 x 16 = 256 threads, as before; each thread copies 4 elements of each
// slice per phase instead of 8).
//
// Predicted now: step6.speed 5-8 of 10 (ratio 1.4-1.8), every other check full: 95-98.
// Correct: arguably 100 (the method asked for, done right); at least, a limit that fails the
// textbook register tile should say so in the guide. Confidence: medium (ratio not measured);
// medium-low (verdict: the limit is the lab's choice).

// Lab 4 reference solution: naive vs shared-memory tiled matrix multiply.
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
    const bool tiles_fit = 2 * tile * tile * sizeof(float) <= device.sharedMemPerBlock;
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
constexpr int kBlockRows = 64;   // Edit (1): 64 x 64, 4 x 4 a thread
constexpr int kBlockCols = 64;
constexpr int kStepK = 16;  // columns of a (rows of b) per phase
constexpr int kThreadRows = 4;
constexpr int kThreadCols = 4;
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
