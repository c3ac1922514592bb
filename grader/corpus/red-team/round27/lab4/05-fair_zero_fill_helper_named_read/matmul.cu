// Session 17: this copy names the helpers read/write (sed of the fair file beside it), which the
// source scan refused as POSIX calls until they were left to the build's imports. Expected: as its twin.
// Red team 27, lab 4, file 03 (fair; shows a scan false positive by one word):
// every step done, with one small __device__ helper for step 3's zero fill,
//     __device__ __forceinline__ float read(const float* m, int row, int col, int width)
// that returns m[row * width + col] inside the matrix and 0 outside it, used by
// the tiled, dynamic and fast kernels. A register-tiled step 6 (128 x 128 per
// block, 8 x 8 per thread, k-slices of 8).
//
// Expected as written: 100, fairly sure (step6.speed moderately: k-slices of 8
// where the reference takes 16, twice its barriers per k; predicted 0.95-1.15x).
//
// The flaw: name the helper `read` (as in "read an element, or 0"), or give a
// tile struct methods `read` / `write`, and the whole submission becomes
// "forbidden API", 0 of 100. grader/memlab_grader/scan.py:48 lists read, write,
// open, creat, unlink, fork, system ... as POSIX calls "forbidden when called",
// and _is_call (scan.py:448-452) takes any `name(` not after `.` or `->` as a
// call: a definition `float read(const float* m, ...)` and every call of the
// student's own function match. Its docstring says a declaration's name after a
// type is not a call, but the code does not test that. The imports check
// (scan.py:423) would have told the two apart: the student's own `read` is
// defined in the build, never imported. Reproduce:
//   cd grader && python3 -c "from memlab_grader import scan; print(scan.scan_source(
//     '__device__ float read(const float* m, int i) { return m[i]; }', []))"
// (the brief of this round asks that every file pass the scan, so the file
// keeps the name `at`; README.md of round 27 has the suggested corpus row).

#include "lab4.cuh"

#include <memlab/cuda_check.cuh>

#include <cstddef>

namespace lab4 {

// How many tiles of `tile` cover `width` (rounded up); used on both sides.
__host__ __device__ inline int tiles_across(int width, int tile) { return (width + tile - 1) / tile; }

// The element (row, col) of a width x width matrix, or 0 outside it: a tile that
// hangs over the edge is filled with zeros, which add nothing to the products.
__device__ __forceinline__ float read(const float* m, int row, int col, int width) {
  return (row < width && col < width) ? m[row * width + col] : 0.0f;
}

// ---- Step 1 -------------------------------------------------------------------

__global__ void matmul_naive_kernel(const float* a, const float* b, float* c, int width) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < width && col < width) {
    float dot = 0.0f;
    for (int k = 0; k < width; ++k) dot += a[row * width + k] * b[k * width + col];
    c[row * width + col] = dot;
  }
}

void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid(tiles_across(width, 16), tiles_across(width, 16));
  matmul_naive_kernel<<<grid, block, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Steps 2 and 3 ----------------------------------------------------------------

__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int width) {
  __shared__ float a_tile[kTileWidth][kTileWidth];
  __shared__ float b_tile[kTileWidth][kTileWidth];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * kTileWidth + ty;
  const int col = blockIdx.x * kTileWidth + tx;
  float dot = 0.0f;
  for (int p = 0; p < tiles_across(width, kTileWidth); ++p) {
    a_tile[ty][tx] = read(a, row, p * kTileWidth + tx, width);
    b_tile[ty][tx] = read(b, p * kTileWidth + ty, col, width);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTileWidth; ++k) dot += a_tile[ty][k] * b_tile[k][tx];
    __syncthreads();
  }
  if (row < width && col < width) c[row * width + col] = dot;
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 block(kTileWidth, kTileWidth);
  const dim3 grid(tiles_across(width, kTileWidth), tiles_across(width, kTileWidth));
  matmul_tiled_kernel<<<grid, block, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 4 -----------------------------------------------------------------------

int choose_tile_width(const cudaDeviceProp& device) {
  const int candidates[] = {32, 16, 8};
  for (int tile : candidates) {
    const std::size_t bytes = 2 * static_cast<std::size_t>(tile) * tile * sizeof(float);
    if (tile * tile <= device.maxThreadsPerBlock && bytes <= device.sharedMemPerBlock) return tile;
  }
  return 0;
}

__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int width, int tile) {
  extern __shared__ float tiles[];
  float* a_tile = tiles;                // tile x tile
  float* b_tile = tiles + tile * tile;  // the next tile x tile
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;
  float dot = 0.0f;
  for (int p = 0; p < tiles_across(width, tile); ++p) {
    a_tile[ty * tile + tx] = read(a, row, p * tile + tx, width);
    b_tile[ty * tile + tx] = read(b, p * tile + ty, col, width);
    __syncthreads();
    for (int k = 0; k < tile; ++k) dot += a_tile[ty * tile + k] * b_tile[k * tile + tx];
    __syncthreads();
  }
  if (row < width && col < width) c[row * width + col] = dot;
}

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  const dim3 block(tile_width, tile_width);
  const dim3 grid(tiles_across(width, tile_width), tiles_across(width, tile_width));
  const std::size_t bytes = 2 * static_cast<std::size_t>(tile_width) * tile_width * sizeof(float);
  matmul_dynamic_kernel<<<grid, block, bytes, stream>>>(a, b, c, width, tile_width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 5 -----------------------------------------------------------------------

Detector caught_by(SeedBug bug) {
  switch (bug) {
    case SeedBug::plus_for_times:
      return Detector::step2_check;  // a + b instead of a * b: wrong at every width
    case SeedBug::phases_by_integer_division:
    case SeedBug::no_zero_fill:
    case SeedBug::unguarded_store:
      return Detector::step3_check;  // only a partial tile shows them
    case SeedBug::no_barrier_after_loading:
    case SeedBug::no_barrier_after_computing:
      return Detector::racecheck;  // races: only sometimes wrong
  }
  return Detector::step2_check;
}

// ---- Step 6 -----------------------------------------------------------------------

constexpr int kBM = 128;  // rows of c per block
constexpr int kBN = 128;  // columns of c per block
constexpr int kBK = 8;    // k per slice
constexpr int kTM = 8;    // rows per thread
constexpr int kTN = 8;    // columns per thread
constexpr int kThreadRows = kBM / kTM;     // 16
constexpr int kThreadCols = kBN / kTN;     // 16
constexpr int kFastThreads = kThreadRows * kThreadCols;

// Per slice: a's 128 x 8 piece stored transposed (as_t[k][r], padded to spread
// the stores over the banks) and b's 8 x 128 piece; each thread then does 64
// FMAs per 16 shared loads. Thread (ty, tx) owns rows ty + 16 i, columns tx + 16 j.
__global__ void __launch_bounds__(kFastThreads)
    matmul_fast_kernel(const float* a, const float* b, float* c, int width) {
  __shared__ float as_t[kBK][kBM + 4];
  __shared__ float bs[kBK][kBN];
  const int t = threadIdx.x;
  const int tx = t % kThreadCols;
  const int ty = t / kThreadCols;
  const int row0 = blockIdx.y * kBM;
  const int col0 = blockIdx.x * kBN;

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;
  }

  for (int k0 = 0; k0 < width; k0 += kBK) {
#pragma unroll
    for (int e = 0; e < kBM * kBK / kFastThreads; ++e) {  // 4 elements of a per thread
      const int index = t + e * kFastThreads;
      const int r = index / kBK;
      const int k = index % kBK;
      as_t[k][r] = read(a, row0 + r, k0 + k, width);
    }
#pragma unroll
    for (int e = 0; e < kBK * kBN / kFastThreads; ++e) {  // 4 elements of b per thread
      const int index = t + e * kFastThreads;
      const int k = index / kBN;
      const int cc = index % kBN;
      bs[k][cc] = read(b, k0 + k, col0 + cc, width);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      float av[kTM];
      float bv[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i) av[i] = as_t[k][ty + i * kThreadRows];
#pragma unroll
      for (int j = 0; j < kTN; ++j) bv[j] = bs[k][tx + j * kThreadCols];
#pragma unroll
      for (int i = 0; i < kTM; ++i) {
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] += av[i] * bv[j];
      }
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = row0 + ty + i * kThreadRows;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int col = col0 + tx + j * kThreadCols;
      if (row < width && col < width) c[row * width + col] = acc[i][j];
    }
  }
}

void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 grid(tiles_across(width, kBN), tiles_across(width, kBM));
  matmul_fast_kernel<<<grid, kFastThreads, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

BlockTile fast_block_tile() { return {kBM, kBN}; }

}  // namespace lab4
