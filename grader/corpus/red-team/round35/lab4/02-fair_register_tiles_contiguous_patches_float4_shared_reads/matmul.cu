// Red team 35, lab 4, file 02 (fair, at risk of step 6's speed limit). The reference, except that
// in step 6 each thread owns a CONTIGUOUS 8 x 8 patch of its block's 128 x 128 tile (rows
// 8 ty .. 8 ty + 7, columns 8 tx .. 8 tx + 7) and reads its 8 values of a and 8 of b per k with
// two float4 loads each from shared memory (LDS.128), the layout of the most read SGEMM tutorial
// ("2D blocktiling" + "vectorized shared-memory loads"), where the reference gives each thread
// rows ty + 16 i and columns tx + 16 j and reads 16 scalars per k.
//
// Why it is fair: lab4.cuh step 6's method exactly (several elements of c from registers), the
// guide's transposed and padded slice of a, bounds checks on every load and store; only the
// ownership of the patch and the width of the shared loads differ. The guide's hint for strided
// ownership is a hint ("so a warp's shared-memory reads fall in different banks").
//
// What is at risk: step6.speed (labs/lab4_matmul/grading/grader.cpp:292-311, 1.25x the
// reference's time at width 4096). The reference's choice was "chosen from the bank arithmetic,
// not by trial"; docs/measurements/lab4-5.md: "with contiguous per-thread patches (4-way
// conflicts on the reads) it was not measured". With float4 reads the arithmetic changes: per k a
// warp (tx 0-15, two ty) issues 4 LDS.128 instead of 16 LDS.32; a's two are broadcasts, b's two
// are 2-way conflicted (quarter-warps at a 32-byte stride). Fewer instructions, more wavefronts:
// which wins on an H100 is what this file measures. No correctness check depends on the layout
// (kFastWidths 1, 17, 100, 129, 1000, 1024; every store still guarded on its own).
//
// Edits to solutions/lab4_matmul/matmul.cu: (1) a_slice and b_slice aligned to 16 bytes (a_slice
// keeps its 4-float padding: a row is 132 floats, 528 bytes, a multiple of 16); (2) a thread's
// rows and columns are 8 ty + i and 8 tx + j; (3) the 8 values of a and of b per k are read as
// two float4 each.
//
// Predicted now: 100 if the float4 reads pay for the 2-way conflicts (ratio 0.8-1.2), else
// step6.speed in proportion (a ratio of 1.4 gives 9 of 10). Correct: 100.
// Confidence: low-medium on the ratio (not measured by anyone); high on the verdict.

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
// slice of b into shared memory. Each thread owns a contiguous 8 x 8 patch and
// reads its 8 values of a and 8 of b per k as two float4 each (LDS.128).
__global__ void __launch_bounds__(kFastThreads)
    matmul_fast_kernel(const float* a, const float* b, float* c, int width) {
  // Edit (1): 16-byte aligned rows, so that a thread's 8 values are two float4s.
  __shared__ __align__(16) float a_slice[kStepK][kBlockRows + 4];
  __shared__ __align__(16) float b_slice[kStepK][kBlockCols];  // b_slice[k][c] = b[k0 + k][block_col + c]
  const int block_row = blockIdx.y * kBlockRows;
  const int block_col = blockIdx.x * kBlockCols;
  const int tx = threadIdx.x % kThreadsAcross;
  const int ty = threadIdx.x / kThreadsAcross;
  // Edit (2): the thread's patch is rows first_row .. first_row + 7, columns first_col .. first_col + 7.
  const int first_row = ty * kThreadRows;
  const int first_col = tx * kThreadCols;

  float sum[kThreadRows][kThreadCols] = {};
  for (int k0 = 0; k0 < width; k0 += kStepK) {
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
      // Edit (3): two float4 loads for a's 8 values, two for b's.
      const float4 a_low = *reinterpret_cast<const float4*>(&a_slice[k][first_row]);
      const float4 a_high = *reinterpret_cast<const float4*>(&a_slice[k][first_row + 4]);
      const float4 b_low = *reinterpret_cast<const float4*>(&b_slice[k][first_col]);
      const float4 b_high = *reinterpret_cast<const float4*>(&b_slice[k][first_col + 4]);
      const float a_values[kThreadRows] = {a_low.x, a_low.y, a_low.z, a_low.w, a_high.x, a_high.y, a_high.z, a_high.w};
      const float b_values[kThreadCols] = {b_low.x, b_low.y, b_low.z, b_low.w, b_high.x, b_high.y, b_high.z, b_high.w};
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
    const int row = block_row + first_row + i;
#pragma unroll
    for (int j = 0; j < kThreadCols; ++j) {
      const int col = block_col + first_col + j;
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
