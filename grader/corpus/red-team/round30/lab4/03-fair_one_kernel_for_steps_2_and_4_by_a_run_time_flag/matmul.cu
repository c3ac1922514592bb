// Red team 30, lab 4, file 03 (fair, marked down): one tiled kernel for steps 2 and 4,
// chosen by a run-time flag.
//
// What the student did. The twin of round30/lab4/01, written without a template: one
// kernel matmul_tiles_kernel(..., int tile, bool dynamic_tiles) declares both the fixed
// tiles (2 x 16 x 16 floats, for step 2) and the extern array, and uses the extern one
// when dynamic_tiles is true (EDIT). matmul_tiled launches it with (kTileWidth, false)
// and no dynamic shared memory; matmul_dynamic with (tile_width, true) and
// 2 * tile * tile * sizeof(float) bytes. In every call of matmul_dynamic the tiles
// live in the extern array sized by the launch's third parameter, as lab4.cuh asks;
// the fixed array sits unused. Steps 1, 5 and 6 are the reference's.
//
// What the grader sees. With a run-time flag nvcc must keep both arrays: this kernel
// holds 2048 bytes of fixed __shared__ memory (cuobjdump -res-usage for sm_90:
// SHARED:3072, less the 1 KB reserve). tiles_not_dynamic
// (labs/lab4_matmul/grading/grader.cpp:173-202) fails any kernel matmul_dynamic
// launches whose fixed shared memory is a tile's bytes or more:
//   - tile 8 (256 B) and tile 16 (1024 B): 2048 >= tile bytes, step4.correct fails at
//     tile 8, the first it tries ("No kernel matmul_dynamic launches may");
//   - tile 32 (4096 B): 2048 < 4096, so step4.speed's timed runs at this GPU's tile
//     (32 on an H100) pass the same test and keep their points.
// The check cannot tell a fixed array left unused from fixed tiles that do the work
// (red team 23's trick asked for the bytes and kept its tiles in fixed arrays), and the
// guide says "no kernel matmul_dynamic launches (a helper kernel included) may hold a
// tile or more there". A student who wrote the template of round30/lab4/01 instead
// scores 100 for the same design.
//
// Speed. Step 2's launch now runs the k loop to a run-time bound (not unrolled), as
// the reference's dynamic kernel does: the guide measured 6.4 against 8.2 TFLOP/s for
// the two at tile 16, ~1.28x, so step2.speed loses a few tenths of a point.
//
// Predicted now: step4.correct 0, step4.speed 5, step2.speed ~9.8: ~90.
// Correct: 100 by lab4.cuh's words (the dynamic calls keep their tiles in the extern
// array), 90 by the guide's rule as the grader applies it. See README flaw 1.
// Otherwise: Lab 4 reference solution: naive vs shared-memory tiled matrix multiply.
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

// ---- Steps 2 to 4: one tiled kernel for both tile widths --------------------------

// RED TEAM 30 EDIT: steps 2 and 4 share one kernel; dynamic_tiles says which tiles it uses.
__global__ void matmul_tiles_kernel(const float* a, const float* b, float* c, int width, int tile,
                                    bool dynamic_tiles) {
  __shared__ float fixed_tiles[2 * kTileWidth * kTileWidth];  // step 2: a's tile, then b's
  extern __shared__ float dynamic_tiles_array[];              // step 4: sized by the launch
  float* a_tile = dynamic_tiles ? dynamic_tiles_array : fixed_tiles;
  float* b_tile = a_tile + tile * tile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;
  const int phases = (width + tile - 1) / tile;  // rounded up: the last tile may be partial

  float sum = 0.0f;
  for (int phase = 0; phase < phases; ++phase) {
    // Outside the matrix, load 0: it adds nothing to the sum.
    const int a_col = phase * tile + tx;
    const int b_row = phase * tile + ty;
    a_tile[ty * tile + tx] = (row < width && a_col < width) ? a[row * width + a_col] : 0.0f;
    b_tile[ty * tile + tx] = (b_row < width && col < width) ? b[b_row * width + col] : 0.0f;
    __syncthreads();  // read after write: every element of both tiles is in place
    for (int k = 0; k < tile; ++k) sum += a_tile[ty * tile + k] * b_tile[k * tile + tx];
    __syncthreads();  // write after read: nobody overwrites a tile another thread still reads
  }
  if (row < width && col < width) c[row * width + col] = sum;
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 block(kTileWidth, kTileWidth);
  const dim3 grid(blocks_for(width, kTileWidth), blocks_for(width, kTileWidth));
  matmul_tiles_kernel<<<grid, block, 0, stream>>>(a, b, c, width, kTileWidth, false);
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

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  const dim3 block(tile_width, tile_width);
  const dim3 grid(blocks_for(width, tile_width), blocks_for(width, tile_width));
  const std::size_t shared_bytes = 2 * tile_width * tile_width * sizeof(float);
  matmul_tiles_kernel<<<grid, block, shared_bytes, stream>>>(a, b, c, width, tile_width, true);
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
