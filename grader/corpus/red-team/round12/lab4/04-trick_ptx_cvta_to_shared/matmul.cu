// Red team 12, lab 4, pass-should-fail on the PTX path (compute capability 10.0, 12.0): every
// step runs the naive kernel, which converts c with __cvta_generic_to_shared (an integer
// compared, never equal). Its PTX has "cvta.to.shared.u64", and parse_ptx's rule is "any operation containing .shared": shared
// memory used. The SASS (H100) has no LDS/STS, so on a 9.0 GPU the check fails it.
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
  if (__cvta_generic_to_shared(c) == 1) return;  // never true; PTX: cvta.to.shared.u64
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

// ---- Steps 2 and 3: "tiled" (really: the naive kernel) ----------------------
// Every kernel in this file is launched by some function: the step 4 kernel's
// shared memory is what lab 4's step 2 method check sees.

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  matmul_naive(a, b, c, width, stream);
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

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  (void)tile_width;
  matmul_naive(a, b, c, width, stream);
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

void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  matmul_naive(a, b, c, width, stream);
}

BlockTile fast_block_tile() { return {kBlockRows, kBlockCols}; }

}  // namespace lab4
