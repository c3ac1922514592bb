// Red team 23, lab 4, file 01 (TRICK). Step 4's tiles stay in fixed __shared__
// arrays, one kernel per tile width (a template), exactly what the guide says fails
// step 4 since red team 22. Each launch still passes 2 * tile * tile *
// sizeof(float) as its third parameter, and the kernel never declares an extern
// __shared__ array, so those bytes are reserved and never touched.
// tiles_not_dynamic (labs/lab4_matmul/grading/grader.cpp) reads only the number a
// launch asked for (launch_watch.cpp dynamic_shared_bytes), not whether the kernel
// that got it keeps its tiles there, so step4.correct passes.
// Steps 1 to 3 and 5 are done honestly; step 6 is not attempted (the tiled
// multiply again).
#include "lab4.cuh"

#include <memlab/cuda_check.cuh>

#include <cstddef>

namespace lab4 {

namespace {

dim3 grid_over(int width, int block) {
  const unsigned n = static_cast<unsigned>((width + block - 1) / block);
  return dim3(n, n);
}

}  // namespace

// Step 1: a thread per element of c.
__global__ void matmul_naive_kernel(const float* a, const float* b, float* c, int width) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= width || col >= width) return;
  float acc = 0.0f;
  for (int k = 0; k < width; ++k) acc += a[static_cast<std::size_t>(row) * width + k] * b[static_cast<std::size_t>(k) * width + col];
  c[static_cast<std::size_t>(row) * width + col] = acc;
}

void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  if (width <= 0) return;
  matmul_naive_kernel<<<grid_over(width, 16), dim3(16, 16), 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

// Steps 2 and 3: kTileWidth x kTileWidth tiles in fixed shared arrays, zero-filled past the edge.
__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int width) {
  __shared__ float a_tile[kTileWidth][kTileWidth];
  __shared__ float b_tile[kTileWidth][kTileWidth];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTileWidth + ty;
  const int col = blockIdx.x * kTileWidth + tx;
  float acc = 0.0f;
  for (int phase = 0; phase < (width + kTileWidth - 1) / kTileWidth; ++phase) {
    const int ak = phase * kTileWidth + tx;
    const int bk = phase * kTileWidth + ty;
    a_tile[ty][tx] = (row < width && ak < width) ? a[static_cast<std::size_t>(row) * width + ak] : 0.0f;
    b_tile[ty][tx] = (bk < width && col < width) ? b[static_cast<std::size_t>(bk) * width + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTileWidth; ++k) acc += a_tile[ty][k] * b_tile[k][tx];
    __syncthreads();
  }
  if (row < width && col < width) c[static_cast<std::size_t>(row) * width + col] = acc;
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  if (width <= 0) return;
  matmul_tiled_kernel<<<grid_over(width, kTileWidth), dim3(kTileWidth, kTileWidth), 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

int choose_tile_width(const cudaDeviceProp& device) {
  for (int tile : {32, 16, 8}) {
    const std::size_t bytes = 2u * static_cast<std::size_t>(tile) * tile * sizeof(float);
    if (tile * tile <= device.maxThreadsPerBlock && bytes <= device.sharedMemPerBlock) return tile;
  }
  return 0;
}

// Step 4: a fixed-tile kernel per width; the launch's dynamic bytes are left unused.
template <int kTile>
__global__ void matmul_fixed_tile_kernel(const float* a, const float* b, float* c, int width) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int phase = 0; phase < (width + kTile - 1) / kTile; ++phase) {
    const int ak = phase * kTile + tx;
    const int bk = phase * kTile + ty;
    a_tile[ty][tx] = (row < width && ak < width) ? a[static_cast<std::size_t>(row) * width + ak] : 0.0f;
    b_tile[ty][tx] = (bk < width && col < width) ? b[static_cast<std::size_t>(bk) * width + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += a_tile[ty][k] * b_tile[k][tx];
    __syncthreads();
  }
  if (row < width && col < width) c[static_cast<std::size_t>(row) * width + col] = acc;
}

template <int kTile>
void launch_fixed(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const std::size_t unused_bytes = 2u * kTile * kTile * sizeof(float);  // what the grader reads
  matmul_fixed_tile_kernel<kTile><<<grid_over(width, kTile), dim3(kTile, kTile), unused_bytes, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  if (width <= 0) return;
  switch (tile_width) {
    case 8: launch_fixed<8>(a, b, c, width, stream); break;
    case 16: launch_fixed<16>(a, b, c, width, stream); break;
    default: launch_fixed<32>(a, b, c, width, stream); break;
  }
}

Detector caught_by(SeedBug bug) {
  switch (bug) {
    case SeedBug::plus_for_times: return Detector::step2_check;
    case SeedBug::phases_by_integer_division: return Detector::step3_check;
    case SeedBug::no_zero_fill: return Detector::step3_check;
    case SeedBug::unguarded_store: return Detector::step3_check;
    case SeedBug::no_barrier_after_loading: return Detector::racecheck;
    case SeedBug::no_barrier_after_computing: return Detector::racecheck;
  }
  return Detector::step2_check;
}

// Step 6 is not attempted: the tiled multiply again (correct, not faster).
void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  matmul_tiled(a, b, c, width, stream);
}

BlockTile fast_block_tile() { return {kTileWidth, kTileWidth}; }

}  // namespace lab4
