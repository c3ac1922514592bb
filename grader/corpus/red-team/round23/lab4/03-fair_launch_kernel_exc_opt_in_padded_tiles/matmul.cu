// Red team 23, lab 4, file 03 (FAIR, control). An honest step 4 written the way a
// student who read the CUDA programming guide's launch API might write it:
// - the tiles live in one extern __shared__ array, padded by a column (tile x
//   (tile + 1) floats each) against bank conflicts on the b tile's column reads;
// - the kernel is launched through a template helper that takes the kernel as a
//   function pointer and calls cudaLaunchKernelExC with a cudaLaunchConfig_t;
// - before the launch, the helper opts the kernel into the bytes it asks for
//   with cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize), as a
//   kernel above 48 KB must (harmless below it).
// The runtime ends in cuLaunchKernelEx, whose config->sharedMemBytes the runner
// reads (launch_watch.cpp dynamic_shared_bytes): 2 * tile * (tile + 1) * 4 bytes,
// more than the 2 * tile * tile * 4 tiles_not_dynamic asks for. Expected to pass.
// Steps 1 to 3 and 5 honest; step 6 not attempted.
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

// Step 4: two padded tiles in one dynamic array; tile x tile threads.
__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int width, int tile) {
  extern __shared__ float tiles[];
  const int pitch = tile + 1;
  float* a_tile = tiles;
  float* b_tile = tiles + tile * pitch;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;
  float acc = 0.0f;
  for (int phase = 0; phase < (width + tile - 1) / tile; ++phase) {
    const int ak = phase * tile + tx;
    const int bk = phase * tile + ty;
    a_tile[ty * pitch + tx] = (row < width && ak < width) ? a[static_cast<std::size_t>(row) * width + ak] : 0.0f;
    b_tile[ty * pitch + tx] = (bk < width && col < width) ? b[static_cast<std::size_t>(bk) * width + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < tile; ++k) acc += a_tile[ty * pitch + k] * b_tile[k * pitch + tx];
    __syncthreads();
  }
  if (row < width && col < width) c[static_cast<std::size_t>(row) * width + col] = acc;
}

namespace {

// Launches @p kernel with @p bytes of dynamic shared memory through the extensible launch API.
template <typename... Params, typename... Args>
void launch_with_shared(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t bytes, cudaStream_t stream,
                        Args... args) {
  MEMLAB_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = bytes;
  config.stream = stream;
  void* pointers[] = {static_cast<void*>(&args)...};
  MEMLAB_CHECK(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel), pointers));
}

}  // namespace

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  if (width <= 0) return;
  const std::size_t bytes = 2u * static_cast<std::size_t>(tile_width) * (tile_width + 1) * sizeof(float);
  launch_with_shared(matmul_dynamic_kernel, grid_over(width, tile_width), dim3(tile_width, tile_width), bytes, stream,
                     a, b, c, width, tile_width);
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
