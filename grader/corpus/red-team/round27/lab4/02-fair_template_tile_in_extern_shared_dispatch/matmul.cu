// Red team 27, lab 4, file 02 (fair by the letter of step 4; ambiguous by its
// lesson): the dynamic step as a template over the tile width whose tiles live
// in the extern __shared__ array sized by the launch's third parameter, with the
// host choosing the instance at run time:
//     switch (tile_width) { case 8: kernel<8><<<g, b, bytes, s>>>(...); ... }
// Inside each instance the tile is a compile-time constant, so the k loop is
// unrolled and the offsets are constants, which is what the guide says makes the
// compiled-in tile faster (README step 4: "Real libraries compile one kernel per
// tile size and choose among them at run time"). The stretch step is not
// attempted: matmul_fast calls the tiled kernel, and fast_block_tile says 16 x 16.
//
// Expected now: 90, fairly sure.
//  - step4.correct passes: the launches that stage data were given both tiles'
//    bytes (grader.cpp:179-185), and no launched kernel holds fixed shared arrays
//    (only the reserved 1 KB: grader.cpp:186-191; common/memlab/grading/grader.cpp:257-285).
//  - step4.speed passes, likely faster than the reference (compiled-in tile 16:
//    8.2 TFLOP/s against the runtime tile's 6.4-6.7, docs/measurements/lab4-5.md).
//  - step6.correct passes (the tiled kernel is right at any width); step6.speed
//    ~3.6x the reference (lab4-5.md, "fast_is_only_tiled": 3.625x): 0 of 10.
// Correct verdict: 90 if step 4 asks only that the tiles live in the extern
// array (lab4.cuh's words, and what round 22's file 02 was failed for lacking);
// 80 if step 4 asks for "the tile width at run time" inside the kernel (the
// step's title, and the guide's explanation of why the dynamic kernel is
// slower). The guide and lab4.cuh should say which; round 22/02 (fixed arrays
// per instance) fails and this file, the same dispatch with the extern array,
// passes.

#include "lab4.cuh"

#include <memlab/cuda_check.cuh>

#include <cstddef>

namespace lab4 {

namespace {

unsigned cover(int width, int tile) { return static_cast<unsigned>((width + tile - 1) / tile); }

}  // namespace

__global__ void matmul_naive_kernel(const float* a, const float* b, float* c, int width) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < width && col < width) {
    float total = 0.0f;
    for (int k = 0; k < width; ++k) total += a[row * width + k] * b[k * width + col];
    c[row * width + col] = total;
  }
}

void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 block(16, 16);
  matmul_naive_kernel<<<dim3(cover(width, 16), cover(width, 16)), block, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int width) {
  __shared__ float a_tile[kTileWidth][kTileWidth];
  __shared__ float b_tile[kTileWidth][kTileWidth];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTileWidth + ty;
  const int col = blockIdx.x * kTileWidth + tx;
  float total = 0.0f;
  for (int base = 0; base < width; base += kTileWidth) {
    a_tile[ty][tx] = (row < width && base + tx < width) ? a[row * width + base + tx] : 0.0f;
    b_tile[ty][tx] = (base + ty < width && col < width) ? b[(base + ty) * width + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTileWidth; ++k) total += a_tile[ty][k] * b_tile[k][tx];
    __syncthreads();
  }
  if (row < width && col < width) c[row * width + col] = total;
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 block(kTileWidth, kTileWidth);
  const dim3 grid(cover(width, kTileWidth), cover(width, kTileWidth));
  matmul_tiled_kernel<<<grid, block, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

int choose_tile_width(const cudaDeviceProp& device) {
  for (int tile : {32, 16, 8}) {
    if (tile * tile > device.maxThreadsPerBlock) continue;
    if (2 * tile * tile * sizeof(float) > device.sharedMemPerBlock) continue;
    return tile;
  }
  return 0;
}

// One instance per tile width; the tiles are in the launch's dynamic shared memory.
template <int TILE>
__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int width) {
  extern __shared__ float tiles[];
  float* a_tile = tiles;
  float* b_tile = tiles + TILE * TILE;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float total = 0.0f;
  for (int base = 0; base < width; base += TILE) {
    a_tile[ty * TILE + tx] = (row < width && base + tx < width) ? a[row * width + base + tx] : 0.0f;
    b_tile[ty * TILE + tx] = (base + ty < width && col < width) ? b[(base + ty) * width + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) total += a_tile[ty * TILE + k] * b_tile[k * TILE + tx];
    __syncthreads();
  }
  if (row < width && col < width) c[row * width + col] = total;
}

template <int TILE>
void launch_dynamic(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 block(TILE, TILE);
  const dim3 grid(cover(width, TILE), cover(width, TILE));
  const std::size_t bytes = 2 * TILE * TILE * sizeof(float);
  matmul_dynamic_kernel<TILE><<<grid, block, bytes, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  switch (tile_width) {
    case 8: launch_dynamic<8>(a, b, c, width, stream); break;
    case 16: launch_dynamic<16>(a, b, c, width, stream); break;
    case 32: launch_dynamic<32>(a, b, c, width, stream); break;
    default: MEMLAB_CHECK(cudaErrorInvalidValue);  // lab4.cuh: 8, 16 or 32
  }
}

Detector caught_by(SeedBug bug) {
  if (bug == SeedBug::plus_for_times) return Detector::step2_check;
  if (bug == SeedBug::no_barrier_after_loading || bug == SeedBug::no_barrier_after_computing) {
    return Detector::racecheck;
  }
  return Detector::step3_check;  // integer division, no zero fill, unguarded store: partial tiles only
}

// Stretch step not attempted: the tiled kernel.
void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  matmul_tiled(a, b, c, width, stream);
}

BlockTile fast_block_tile() { return {kTileWidth, kTileWidth}; }

}  // namespace lab4
