// Red team 27, lab 5, file 02 (fair): step 3's window is 1024 elements of x
// (8 KB), wider than the block of 128 threads: each thread loads every 128th
// element of the window in a loop, so a block meets 2 barriers per 1024 columns
// instead of per 128. The window lives in dynamic shared memory
// (extern __shared__, sized by the launch). Step 4 is a warp per row in blocks
// of 64 threads, reading x through __ldg.
//
// What a student did and why: the guide's questions say the barriers are the
// window's cost; a wider window pays them less often.
//
// Expected: 100, fairly sure.
//  - step3.correct: a launched kernel stores to shared memory and reads it back
//    (STS and LDS: machine_code.cpp uses_shared_memory, grader.cpp:134-148); every
//    thread reaches both barriers; the last window stops at cols; shapes 1 x 1 to
//    65537 x 65537.
//  - step3.speed: A is read as in step 2 (a warp reads 32 consecutive doubles
//    of a column); fewer barriers; x's loads from L1/L2 as before. Predicted
//    0.95-1.05x the reference's shared-x GEMV.
//  - step4.speed: 64-thread blocks give 32 blocks (64 warps) per SM, a full SM:
//    2986 GB/s in the guide's block-size table (lab 5 README), the reference's
//    own figure.

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>

namespace lab5 {

namespace {

constexpr unsigned kRowThreads = 128;
constexpr std::size_t kWindow = 1024;
constexpr unsigned kFastThreads = 64;
constexpr unsigned kLanes = 32;

unsigned blocks_of(std::size_t items, unsigned per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

}  // namespace

__global__ void gemv_row_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                      const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row < rows) {
    const double* line = a + row * cols;
    double s = 0.0;
    for (std::size_t c = 0; c < cols; ++c) s += line[c] * x[c];
    y[row] = alpha * s + beta * y[row];
  }
}

void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                    double beta, double* y, cudaStream_t stream) {
  gemv_row_major_kernel<<<blocks_of(rows, kRowThreads), kRowThreads, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

__global__ void gemv_column_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row < rows) {
    double s = 0.0;
    for (std::size_t c = 0; c < cols; ++c) s += a[c * rows + row] * x[c];
    y[row] = alpha * s + beta * y[row];
  }
}

void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream) {
  gemv_column_major_kernel<<<blocks_of(rows, kRowThreads), kRowThreads, 0, stream>>>(rows, cols, alpha, a, x, beta,
                                                                                    y);
  MEMLAB_CHECK_LAUNCH();
}

// Column-major, one thread per row; x through a 1024-element window.
__global__ void gemv_shared_x_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                     const double* x, double beta, double* y) {
  extern __shared__ double window[];  // kWindow doubles
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const bool mine = row < rows;
  double s = 0.0;
  for (std::size_t first = 0; first < cols; first += kWindow) {
    for (std::size_t j = threadIdx.x; j < kWindow; j += blockDim.x) {
      window[j] = first + j < cols ? x[first + j] : 0.0;
    }
    __syncthreads();  // the whole window is in
    const std::size_t count = cols - first < kWindow ? cols - first : kWindow;
    if (mine) {
      const double* column = a + first * rows + row;
      for (std::size_t j = 0; j < count; ++j) s += column[j * rows] * window[j];
    }
    __syncthreads();  // everyone is done with it before the next one is loaded
  }
  if (mine) y[row] = alpha * s + beta * y[row];
}

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream) {
  gemv_shared_x_kernel<<<blocks_of(rows, kRowThreads), kRowThreads, kWindow * sizeof(double), stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

Layout fast_layout() { return Layout::row_major; }

__global__ void gemv_fast_kernel(std::size_t rows, std::size_t cols, double alpha, const double* __restrict__ a,
                                 const double* __restrict__ x, double beta, double* __restrict__ y) {
  const std::size_t row = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / kLanes;
  const unsigned lane = threadIdx.x & (kLanes - 1);
  if (row >= rows) return;
  const double* line = a + row * cols;
  double s = 0.0;
  for (std::size_t c = lane; c < cols; c += kLanes) s += line[c] * __ldg(x + c);
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
  if (lane == 0) y[row] = alpha * s + beta * y[row];
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  const std::size_t warps_per_block = kFastThreads / kLanes;
  gemv_fast_kernel<<<blocks_of(rows, static_cast<unsigned>(warps_per_block)), kFastThreads, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
