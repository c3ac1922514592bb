// Red team 27, lab 5, file 01 (subtle bug): step 3's window of x, right in every
// respect the guide names (every thread loads one element or 0, every thread
// reaches both barriers, only the sum and the store check the row) but for the
// width of the last window, computed as
//     const std::size_t width = (w + 1 == windows) ? cols % kWindow : kWindow;
// "the last window holds what is left over". When cols is a multiple of 128,
// what is left over is 0: the last window's 128 columns are loaded and never
// used, and y is wrong in every row (off by alpha x the last 128 products:
// ~0.75 x sqrt(128/9), about 3, against a tolerance of ~1e-12).
//
// Expected now: 100, sure. Every shape the grader gives gemv_shared_x has cols
// off a multiple of 128: 1, 1000, 1, 1000, 37, 4097, 129, 3001
// (labs/lab5_gemv/grading/grader.cpp:38-39; the guide: "none of them a multiple
// of a block size"), 65537 past 32 bits (by_gpu.hpp:45), and the timed 20000
// (by_gpu.hpp:38-41; 20000 = 156 x 128 + 32). Steps 1, 2 and 4 are right.
// Correct: step3.correct fails (0 of 15); the timed runs are right (20000), so
// step3.speed keeps its points: 85. lab5.cuh promises step 3 is "correct for any
// rows and cols, multiples of the block size or not".
// Suggested: add a shape whose cols is a multiple of 128 (and of 256) to kShapes,
// e.g. 129 x 1024; and, for lab 4-like coverage, one whose rows is.

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>

namespace lab5 {

namespace {

constexpr unsigned kThreads = 128;
constexpr std::size_t kWindow = kThreads;  // one element of x per thread per window
constexpr unsigned kWarp = 32;
constexpr unsigned kWarpsPerBlock = 4;

unsigned grid_for(std::size_t threads, unsigned per_block) {
  return static_cast<unsigned>((threads + per_block - 1) / per_block);
}

}  // namespace

// ---- Step 1 -------------------------------------------------------------------

__global__ void gemv_row_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                      const double* x, double beta, double* y) {
  const std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double dot = 0.0;
  for (std::size_t c = 0; c < cols; ++c) dot += a[r * cols + c] * x[c];
  y[r] = alpha * dot + beta * y[r];
}

void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                    double beta, double* y, cudaStream_t stream) {
  gemv_row_major_kernel<<<grid_for(rows, kThreads), kThreads, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 2 -------------------------------------------------------------------

__global__ void gemv_column_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double beta, double* y) {
  const std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double dot = 0.0;
  for (std::size_t c = 0; c < cols; ++c) dot += a[c * rows + r] * x[c];
  y[r] = alpha * dot + beta * y[r];
}

void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream) {
  gemv_column_major_kernel<<<grid_for(rows, kThreads), kThreads, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 3 -------------------------------------------------------------------

__global__ void gemv_shared_x_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                     const double* x, double beta, double* y) {
  __shared__ double window[kWindow];
  const std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool has_row = r < rows;  // the others still load x and meet the barriers
  const std::size_t windows = (cols + kWindow - 1) / kWindow;
  double dot = 0.0;
  for (std::size_t w = 0; w < windows; ++w) {
    const std::size_t start = w * kWindow;
    window[threadIdx.x] = start + threadIdx.x < cols ? x[start + threadIdx.x] : 0.0;
    __syncthreads();
    // The last window holds only what is left of x.
    const std::size_t width = (w + 1 == windows) ? cols % kWindow : kWindow;
    if (has_row) {
      for (std::size_t j = 0; j < width; ++j) dot += a[(start + j) * rows + r] * window[j];
    }
    __syncthreads();
  }
  if (has_row) y[r] = alpha * dot + beta * y[r];
}

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream) {
  gemv_shared_x_kernel<<<grid_for(rows, kThreads), kThreads, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 4 -------------------------------------------------------------------

Layout fast_layout() { return Layout::row_major; }

__global__ void gemv_warp_per_row_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double beta, double* y) {
  const std::size_t r = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (r >= rows) return;  // whole warps
  const double* line = a + r * cols;
  double dot = 0.0;
  for (std::size_t c = lane; c < cols; c += kWarp) dot += line[c] * x[c];
  for (unsigned d = kWarp / 2; d > 0; d /= 2) dot += __shfl_down_sync(0xffffffffu, dot, d);
  if (lane == 0) y[r] = alpha * dot + beta * y[r];
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  gemv_warp_per_row_kernel<<<grid_for(rows, kWarpsPerBlock), kWarpsPerBlock * kWarp, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
