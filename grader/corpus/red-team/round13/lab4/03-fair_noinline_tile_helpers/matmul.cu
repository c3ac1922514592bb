// Red team 13, file 03 (fair): tiles written by one __noinline__ helper and read by another.
// From PTX, neither helper both wrote and read shared memory. Full marks.
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

// ---- Steps 2 to 4: tiles in shared memory, through two helpers ----------------

// Copies this thread's element of a's tile and of b's tile into shared memory
// (0 outside the matrix). Kept out of line: both tiled kernels use it.
__device__ __noinline__ void load_tiles(float* a_tile, float* b_tile, const float* a, const float* b, int width,
                                        int tile, int row, int col, int phase) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int a_col = phase * tile + tx;
  const int b_row = phase * tile + ty;
  a_tile[ty * tile + tx] = (row < width && a_col < width) ? a[row * width + a_col] : 0.0f;
  b_tile[ty * tile + tx] = (b_row < width && col < width) ? b[b_row * width + col] : 0.0f;
}

// This thread's tile products, read from shared memory.
__device__ __noinline__ float tile_products(const float* a_tile, const float* b_tile, int tile) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  float sum = 0.0f;
  for (int k = 0; k < tile; ++k) sum += a_tile[ty * tile + k] * b_tile[k * tile + tx];
  return sum;
}

__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int width) {
  __shared__ float a_tile[kTileWidth * kTileWidth];
  __shared__ float b_tile[kTileWidth * kTileWidth];
  const int row = blockIdx.y * kTileWidth + threadIdx.y;
  const int col = blockIdx.x * kTileWidth + threadIdx.x;
  const int phases = (width + kTileWidth - 1) / kTileWidth;
  float sum = 0.0f;
  for (int phase = 0; phase < phases; ++phase) {
    load_tiles(a_tile, b_tile, a, b, width, kTileWidth, row, col, phase);
    __syncthreads();
    sum += tile_products(a_tile, b_tile, kTileWidth);
    __syncthreads();
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

__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int width, int tile) {
  extern __shared__ float tiles[];
  const int row = blockIdx.y * tile + threadIdx.y;
  const int col = blockIdx.x * tile + threadIdx.x;
  const int phases = (width + tile - 1) / tile;
  float sum = 0.0f;
  for (int phase = 0; phase < phases; ++phase) {
    load_tiles(tiles, tiles + tile * tile, a, b, width, tile, row, col, phase);
    __syncthreads();
    sum += tile_products(tiles, tiles + tile * tile, tile);
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
constexpr int kBlockRows = 32;  // matmul_fast runs the dynamic kernel with 32 x 32 tiles
constexpr int kBlockCols = 32;

void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  matmul_dynamic(a, b, c, width, 32, stream);
}

BlockTile fast_block_tile() { return {kBlockRows, kBlockCols}; }

}  // namespace lab4
