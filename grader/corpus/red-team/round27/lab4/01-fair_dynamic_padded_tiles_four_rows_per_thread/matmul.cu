// Red team 27, lab 4, file 01 (fair): step 4's dynamic kernel with padded tiles
// and four rows of c per thread. The extern __shared__ array holds both tiles
// with a row stride of tile + 1 (the classic padding against bank conflicts),
// so the launch asks for 2 * tile * (tile + 1) * sizeof(float) bytes; the block
// is tile x tile/4 threads and each thread computes rows ty, ty + tile/4,
// ty + tile/2, ty + 3 tile/4 of its column (thread coarsening). choose_tile_width
// counts the padding when it checks that the tiles fit. Steps 1-3 and 5 are the
// guide's; step 6 is register-tiled (128 x 128 per block, 8 x 8 per thread).
//
// Expected: 100, fairly sure.
//  - step4.tile_choice: with the padding, tile 32 needs 8448 bytes, 16 needs
//    2176, 8 needs 576: the same choice as the rule on all five made-up devices
//    and on an H100 (grader.cpp:142-160: 48 KB, 4 KB; 1024, 256, 64, 32 threads).
//  - step4.correct: a kernel that stages data in shared memory was given at
//    least two tiles' bytes (2 t (t+1) 4 >= 2 t t 4) and holds no fixed tile
//    (its static shared memory is the reserved 1 KB): grader.cpp:175-192, 197-215.
//    Widths 1, 17, 100, 1000, 1024 with tiles 8, 16, 32: the block covers tile
//    rows in tile/4 passes of 4.
//  - step4.speed: per k, one b value and four a values (broadcasts) feed four
//    FMAs, where the reference's dynamic kernel loads two values per FMA;
//    256 threads per block at tile 32, 8 blocks per SM. At least as fast as the
//    reference's 6.7 TFLOP/s (docs/measurements/lab4-5.md).
//  - step6.speed: moderately sure; the same design as the reference's, k-slices
//    of 8 (the reference's 16): predicted 0.95-1.15x.

#include "lab4.cuh"

#include <memlab/cuda_check.cuh>

#include <cstddef>

namespace lab4 {

namespace {

constexpr int kStep1Side = 16;
constexpr int kRowsPerThread = 4;  // step 4: rows of c per thread

int blocks_over(int width, int side) { return (width + side - 1) / side; }

}  // namespace

// ---- Step 1 -------------------------------------------------------------------

__global__ void matmul_naive_kernel(const float* a, const float* b, float* c, int width) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= width || col >= width) return;
  float sum = 0.0f;
  for (int k = 0; k < width; ++k) sum += a[row * width + k] * b[k * width + col];
  c[row * width + col] = sum;
}

void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 threads(kStep1Side, kStep1Side);
  const dim3 blocks(blocks_over(width, kStep1Side), blocks_over(width, kStep1Side));
  matmul_naive_kernel<<<blocks, threads, 0, stream>>>(a, b, c, width);
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
  const int phases = (width + kTileWidth - 1) / kTileWidth;
  float sum = 0.0f;
  for (int phase = 0; phase < phases; ++phase) {
    const int a_col = phase * kTileWidth + tx;
    const int b_row = phase * kTileWidth + ty;
    a_tile[ty][tx] = row < width && a_col < width ? a[row * width + a_col] : 0.0f;
    b_tile[ty][tx] = b_row < width && col < width ? b[b_row * width + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTileWidth; ++k) sum += a_tile[ty][k] * b_tile[k][tx];
    __syncthreads();
  }
  if (row < width && col < width) c[row * width + col] = sum;
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 threads(kTileWidth, kTileWidth);
  const dim3 blocks(blocks_over(width, kTileWidth), blocks_over(width, kTileWidth));
  matmul_tiled_kernel<<<blocks, threads, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 4 -----------------------------------------------------------------------

// Bytes of the two padded tiles (row stride tile + 1).
std::size_t padded_tiles_bytes(int tile) {
  return 2 * static_cast<std::size_t>(tile) * static_cast<std::size_t>(tile + 1) * sizeof(float);
}

int choose_tile_width(const cudaDeviceProp& device) {
  for (int tile = 32; tile >= 8; tile /= 2) {
    const bool threads_ok = tile * tile <= device.maxThreadsPerBlock;
    const bool shared_ok = padded_tiles_bytes(tile) <= device.sharedMemPerBlock;
    if (threads_ok && shared_ok) return tile;
  }
  return 0;
}

// Block: tile x (tile / 4) threads. Thread (tx, ty) loads and computes rows
// ty + q * (tile / 4), q = 0..3, of column tx of the block's tile of c.
__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int width, int tile) {
  extern __shared__ float tiles[];
  const int stride = tile + 1;
  float* a_tile = tiles;
  float* b_tile = tiles + tile * stride;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int rows_step = tile / kRowsPerThread;
  const int row0 = blockIdx.y * tile;
  const int col = blockIdx.x * tile + tx;
  float sum[kRowsPerThread] = {0.0f, 0.0f, 0.0f, 0.0f};
  const int phases = (width + tile - 1) / tile;
  for (int phase = 0; phase < phases; ++phase) {
    const int k0 = phase * tile;
#pragma unroll
    for (int q = 0; q < kRowsPerThread; ++q) {
      const int r = ty + q * rows_step;  // row within the tile
      const int a_row = row0 + r;
      const int b_row = k0 + r;
      a_tile[r * stride + tx] = (a_row < width && k0 + tx < width) ? a[a_row * width + k0 + tx] : 0.0f;
      b_tile[r * stride + tx] = (b_row < width && col < width) ? b[b_row * width + col] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < tile; ++k) {
      const float b_value = b_tile[k * stride + tx];
#pragma unroll
      for (int q = 0; q < kRowsPerThread; ++q) sum[q] += a_tile[(ty + q * rows_step) * stride + k] * b_value;
    }
    __syncthreads();
  }
#pragma unroll
  for (int q = 0; q < kRowsPerThread; ++q) {
    const int row = row0 + ty + q * rows_step;
    if (row < width && col < width) c[row * width + col] = sum[q];
  }
}

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  const dim3 threads(tile_width, tile_width / kRowsPerThread);
  const dim3 blocks(blocks_over(width, tile_width), blocks_over(width, tile_width));
  matmul_dynamic_kernel<<<blocks, threads, padded_tiles_bytes(tile_width), stream>>>(a, b, c, width, tile_width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 5 -----------------------------------------------------------------------

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
      as_t[k][r] = (row0 + r < width && k0 + k < width) ? a[(row0 + r) * width + k0 + k] : 0.0f;
    }
#pragma unroll
    for (int e = 0; e < kBK * kBN / kFastThreads; ++e) {  // 4 elements of b per thread
      const int index = t + e * kFastThreads;
      const int k = index / kBN;
      const int cc = index % kBN;
      bs[k][cc] = (k0 + k < width && col0 + cc < width) ? b[(k0 + k) * width + col0 + cc] : 0.0f;
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
  const dim3 grid(blocks_over(width, kBN), blocks_over(width, kBM));
  matmul_fast_kernel<<<grid, kFastThreads, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

BlockTile fast_block_tile() { return {kBM, kBN}; }

}  // namespace lab4
