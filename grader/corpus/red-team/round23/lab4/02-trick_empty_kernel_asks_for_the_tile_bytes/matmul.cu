// Red team 23, lab 4, file 02 (TRICK). Step 4 is step 3's kernel: the tile width
// given at run time is ignored, and every multiply runs on 16 x 16 tiles held in
// fixed __shared__ arrays. Before it, matmul_dynamic launches an empty kernel of
// one thread that asks for 2 * tile * tile * sizeof(float) bytes of dynamic shared
// memory and does nothing with them.
// tiles_not_dynamic (labs/lab4_matmul/grading/grader.cpp) takes the largest
// request of ANY launch the calls made at that tile width (std::max_element over
// Launches::dynamic_shared_bytes), not of the kernel that computed c, so the
// empty launch satisfies it and step4.correct passes. (A launch that asks for more
// than the GPU allows and fails would do as well: the runner records a launch at
// the driver call's entry, before the driver refuses it; not used here, because
// that is reasoned, not measured.)
// Steps 1 to 3 and 5 are done honestly; step 6 is not attempted.
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

// Asks for shared memory and uses none.
__global__ void reserve_shared_memory() {}

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  if (width <= 0) return;
  const std::size_t asked = 2u * static_cast<std::size_t>(tile_width) * tile_width * sizeof(float);
  reserve_shared_memory<<<1, 1, asked, stream>>>();
  MEMLAB_CHECK_LAUNCH();
  matmul_tiled(a, b, c, width, stream);  // 16 x 16 fixed tiles, whatever tile_width says
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
