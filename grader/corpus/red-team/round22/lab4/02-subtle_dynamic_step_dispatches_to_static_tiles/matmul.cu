// Lab 4: naive and tiled matrix multiply. One kernel template over the tile
// width serves step 2 (tile 16) and step 4: matmul_dynamic picks the template
// instantiation for the tile it is given, so the tiles are __shared__ arrays of
// a size fixed at compile time, as in step 2. matmul_fast: 2 x 2 per thread.

#include "lab4.cuh"

#include <memlab/cuda_check.cuh>

namespace lab4 {

namespace {

constexpr int T = kTileWidth;

__global__ void naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int w) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= w || col >= w) return;
  float s = 0.0f;
  for (int k = 0; k < w; ++k) s += a[row * w + k] * b[k * w + col];
  c[row * w + col] = s;
}

template <int t>
__global__ void tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int w) {
  __shared__ float as[t][t];
  __shared__ float bs[t][t];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * t + ty;
  const int col = blockIdx.x * t + tx;
  float s = 0.0f;
  for (int phase = 0; phase < (w + t - 1) / t; ++phase) {
    const int ka = phase * t + tx, kb = phase * t + ty;
    as[ty][tx] = (row < w && ka < w) ? a[row * w + ka] : 0.0f;
    bs[ty][tx] = (kb < w && col < w) ? b[kb * w + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < t; ++k) s += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  if (row < w && col < w) c[row * w + col] = s;
}

// 16 x 16 threads, each 2 x 2 elements of a 32 x 32 block tile; k in steps of 16.
constexpr int kFastTile = 32;
constexpr int kFastK = 16;

__global__ void fast(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int w) {
  __shared__ float as[kFastTile][kFastK + 1];
  __shared__ float bs[kFastK][kFastTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * 16 + tx;
  const int row0 = blockIdx.y * kFastTile;
  const int col0 = blockIdx.x * kFastTile;
  float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
  for (int k0 = 0; k0 < w; k0 += kFastK) {
    for (int i = tid; i < kFastTile * kFastK; i += 256) {
      const int r = i / kFastK, k = i % kFastK;
      const int gr = row0 + r, gk = k0 + k;
      as[r][k] = (gr < w && gk < w) ? a[gr * w + gk] : 0.0f;
      const int kk = i / kFastTile, cc = i % kFastTile;
      const int gkk = k0 + kk, gc = col0 + cc;
      bs[kk][cc] = (gkk < w && gc < w) ? b[gkk * w + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kFastK; ++k) {
      const float a0 = as[ty][k], a1 = as[ty + 16][k];
      const float b0 = bs[k][tx], b1 = bs[k][tx + 16];
      acc[0][0] += a0 * b0;
      acc[0][1] += a0 * b1;
      acc[1][0] += a1 * b0;
      acc[1][1] += a1 * b1;
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const int r = row0 + ty + 16 * i, cc = col0 + tx + 16 * j;
      if (r < w && cc < w) c[r * w + cc] = acc[i][j];
    }
  }
}

dim3 grid_for(int w, int t) { return dim3((w + t - 1) / t, (w + t - 1) / t); }

}  // namespace

void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  if (width <= 0) return;
  naive<<<grid_for(width, 16), dim3(16, 16), 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK(cudaGetLastError());
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  if (width <= 0) return;
  tiled<T><<<grid_for(width, T), dim3(T, T), 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK(cudaGetLastError());
}

int choose_tile_width(const cudaDeviceProp& device) {
  for (int t : {32, 16, 8}) {
    if (t * t <= device.maxThreadsPerBlock && 2 * t * t * sizeof(float) <= device.sharedMemPerBlock) return t;
  }
  return 0;
}

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  if (width <= 0) return;
  const dim3 block(tile_width, tile_width);
  switch (tile_width) {
    case 8: tiled<8><<<grid_for(width, 8), block, 0, stream>>>(a, b, c, width); break;
    case 16: tiled<16><<<grid_for(width, 16), block, 0, stream>>>(a, b, c, width); break;
    case 32: tiled<32><<<grid_for(width, 32), block, 0, stream>>>(a, b, c, width); break;
    default: return;
  }
  MEMLAB_CHECK(cudaGetLastError());
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

void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  if (width <= 0) return;
  fast<<<grid_for(width, kFastTile), dim3(16, 16), 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK(cudaGetLastError());
}

BlockTile fast_block_tile() { return {kFastTile, kFastTile}; }

}  // namespace lab4
