// Lab 4: naive vs shared-memory tiled matrix multiply.
//
// Everything you write for this lab goes in this file. README.md beside it
// explains each step; lab4.cuh documents the functions below. cuBLAS is not
// allowed here: the grader measures your kernels against it.
//
//   make lab4            build this file and check every step
//   make lab4 STEP=3     check steps 1 to 3 only
//   make lab4-sanitize   look for races in your shared-memory kernels

#include "lab4.cuh"

#include <memlab/cuda_check.cuh>  // MEMLAB_CHECK(call), MEMLAB_CHECK_LAUNCH()

#include <cstddef>

namespace lab4 {

// ---- Step 1: one thread per element of c ------------------------------------

__global__ void matmul_naive_kernel(const float* a, const float* b, float* c, int width) {
  // TODO(step 1): row from the y indices, col from the x indices; threads
  // outside the matrix do nothing; c[row][col] = sum over k of a[row][k] * b[k][col].
}

void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  // TODO(step 1): 16 x 16 blocks, enough of them to cover width x width (round
  // up), launched on `stream`; then MEMLAB_CHECK_LAUNCH().
}

// ---- Steps 2 and 3: tiles in shared memory -------------------------------------

__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int width) {
  // TODO(step 2): two tiles in shared memory,
  //   __shared__ float a_tile[kTileWidth][kTileWidth];
  //   __shared__ float b_tile[kTileWidth][kTileWidth];
  // then for each phase, copy one element of a and one of b into the
  // tiles, wait for the whole block, add up kTileWidth products from the tiles,
  // and wait again before the next phase overwrites them. Then write c.
  // TODO(step 3): make it right for any width: round the phase count up, load 0
  // outside the matrix, and write c only inside it.
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  // TODO(step 2): kTileWidth x kTileWidth blocks, one per tile of c.
}

// ---- Step 4: the tile width chosen at run time ----------------------------------

int choose_tile_width(const cudaDeviceProp& device) {
  // TODO(step 4): the largest of 32, 16, 8 allowed by device.maxThreadsPerBlock
  // whose two tiles fit in device.sharedMemPerBlock; 0 if none.
  return 0;
}

__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int width, int tile) {
  // TODO(step 4): your step 3 kernel with `extern __shared__ float tiles[];`
  // holding both tiles, indexed by hand: [row * tile + col].
}

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  // TODO(step 4): tile_width x tile_width blocks; the third launch parameter is
  // the shared memory per block, in bytes.
}

// ---- Step 5: the seeded bugs (read seed_bugs.cu) --------------------------------

Detector caught_by(SeedBug bug) {
  // TODO(step 5): for each bug, which detector catches it for certain.
  switch (bug) {
    case SeedBug::plus_for_times: return Detector::step2_check;
    case SeedBug::phases_by_integer_division: return Detector::step2_check;
    case SeedBug::no_zero_fill: return Detector::step2_check;
    case SeedBug::unguarded_store: return Detector::step2_check;
    case SeedBug::no_barrier_after_loading: return Detector::step2_check;
    case SeedBug::no_barrier_after_computing: return Detector::step2_check;
  }
  return Detector::step2_check;
}

// ---- Step 6 (stretch): register tiling --------------------------------------------

void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  // TODO(step 6): blocks that each compute a large tile of c (128 x 128, say),
  // threads that each compute several elements of it (8 x 8) from registers.
}

BlockTile fast_block_tile() {
  // TODO(step 6): the tile of c one block of matmul_fast computes.
  return {0, 0};
}

}  // namespace lab4
