// Lab 4: naive and tiled matrix multiply. The tiles are filled with the
// asynchronous copy primitives (cuda_pipeline.h): each thread copies its element
// of a and of b global -> shared without a register in between, elements outside
// the matrix zero-filled by the copy itself, then waits for its copies and meets
// the block at the barrier. matmul_fast: 2 x 2 elements of c per thread.

#include "lab4.cuh"

#include <memlab/cuda_check.cuh>

#include <cuda_pipeline.h>

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

// Copies m[r][k] into *dst, or 0 where (r, k) is outside the w x w matrix.
__device__ void stage(float* dst, const float* m, int r, int k, int w) {
  const bool inside = r < w && k < w;
  __pipeline_memcpy_async(dst, inside ? m + r * w + k : m, sizeof(float), inside ? 0 : sizeof(float));
}

__global__ void tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int w) {
  __shared__ float as[T][T];
  __shared__ float bs[T][T];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * T + ty;
  const int col = blockIdx.x * T + tx;
  float s = 0.0f;
  for (int phase = 0; phase < (w + T - 1) / T; ++phase) {
    stage(&as[ty][tx], a, row, phase * T + tx, w);
    stage(&bs[ty][tx], b, phase * T + ty, col, w);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) s += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  if (row < w && col < w) c[row * w + col] = s;
}

__global__ void dynamic_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int w) {
  extern __shared__ float tiles[];
  const int t = blockDim.x;
  float* as = tiles;
  float* bs = tiles + t * t;
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * t + ty;
  const int col = blockIdx.x * t + tx;
  float s = 0.0f;
  for (int phase = 0; phase < (w + t - 1) / t; ++phase) {
    stage(&as[ty * t + tx], a, row, phase * t + tx, w);
    stage(&bs[ty * t + tx], b, phase * t + ty, col, w);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    for (int k = 0; k < t; ++k) s += as[ty * t + k] * bs[k * t + tx];
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
  tiled<<<grid_for(width, T), dim3(T, T), 0, stream>>>(a, b, c, width);
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
  const std::size_t bytes = 2 * static_cast<std::size_t>(tile_width) * tile_width * sizeof(float);
  dynamic_tiled<<<grid_for(width, tile_width), dim3(tile_width, tile_width), bytes, stream>>>(a, b, c, width);
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
