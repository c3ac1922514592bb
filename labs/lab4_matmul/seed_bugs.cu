// Step 5 of lab 4: read this file, not edit it.
//
// Tiled matrix-multiply kernels go wrong in a few typical ways, in printed
// lecture notes as well as in students' code. Below is the tiled kernel of step
// 3, written once, with six such mistakes seeded into it, each switched on by the template parameter: look for
// `Bug ==`. The grader runs every version through its step 2 and step 3 checks
// and shows you what each check saw; your job (TODO(step 5) in matmul.cu) is to
// predict which check catches each bug for certain.

#include "seed_bugs.hpp"

#include <memlab/cuda_check.cuh>

namespace lab4 {

template <SeedBug Bug>
__global__ void tiled_kernel_with_bug(const float* a, const float* b, float* c, int width) {
  __shared__ float a_tile[kTileWidth][kTileWidth];
  __shared__ float b_tile[kTileWidth][kTileWidth];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * kTileWidth + ty;
  const int col = blockIdx.x * kTileWidth + tx;
  // A common way to write it is ceil(width / TILE_WIDTH): the division is between ints, so
  // it is rounded down before ceil() ever sees it.
  const int phases = Bug == SeedBug::phases_by_integer_division ? width / kTileWidth
                                                                : (width + kTileWidth - 1) / kTileWidth;
  float sum = 0.0f;
  for (int phase = 0; phase < phases; ++phase) {
    const int a_col = phase * kTileWidth + tx;
    const int b_row = phase * kTileWidth + ty;
    if (Bug == SeedBug::no_zero_fill) {
      // Loads only what is inside the matrix, and leaves the rest of the tile alone.
      if (row < width && a_col < width) a_tile[ty][tx] = a[row * width + a_col];
      if (b_row < width && col < width) b_tile[ty][tx] = b[b_row * width + col];
    } else {
      a_tile[ty][tx] = (row < width && a_col < width) ? a[row * width + a_col] : 0.0f;
      b_tile[ty][tx] = (b_row < width && col < width) ? b[b_row * width + col] : 0.0f;
    }
    if (Bug != SeedBug::no_barrier_after_loading) __syncthreads();
    for (int k = 0; k < kTileWidth; ++k) {
      if (Bug == SeedBug::plus_for_times) {
        sum += a_tile[ty][k] + b_tile[k][tx];
      } else {
        sum += a_tile[ty][k] * b_tile[k][tx];
      }
    }
    if (Bug != SeedBug::no_barrier_after_computing) __syncthreads();
  }
  if (Bug == SeedBug::unguarded_store || (row < width && col < width)) c[row * width + col] = sum;
}

template <SeedBug Bug>
void launch(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const int blocks = (width + kTileWidth - 1) / kTileWidth;
  tiled_kernel_with_bug<Bug><<<dim3(blocks, blocks), dim3(kTileWidth, kTileWidth), 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

void matmul_with_seed_bug(SeedBug bug, const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  switch (bug) {
    case SeedBug::plus_for_times: return launch<SeedBug::plus_for_times>(a, b, c, width, stream);
    case SeedBug::phases_by_integer_division:
      return launch<SeedBug::phases_by_integer_division>(a, b, c, width, stream);
    case SeedBug::no_zero_fill: return launch<SeedBug::no_zero_fill>(a, b, c, width, stream);
    case SeedBug::unguarded_store: return launch<SeedBug::unguarded_store>(a, b, c, width, stream);
    case SeedBug::no_barrier_after_loading: return launch<SeedBug::no_barrier_after_loading>(a, b, c, width, stream);
    case SeedBug::no_barrier_after_computing:
      return launch<SeedBug::no_barrier_after_computing>(a, b, c, width, stream);
  }
}

}  // namespace lab4
