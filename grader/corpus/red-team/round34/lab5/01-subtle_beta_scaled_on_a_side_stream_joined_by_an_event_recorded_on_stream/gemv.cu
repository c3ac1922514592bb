// Red team 34, lab 5, file 01 (subtle: a race that today's hold after each event record HIDES,
// with a margin of half a millisecond). The reference, except that gemv_fast overlaps the
// "beta * y" pass with the matrix pass, the split the step 4 hint itself suggests ("atomicAdd
// after scaling y by beta once"), on two streams:
//   side stream: y *= beta                                    (scale_y_kernel, forked from `stream`)
//   `stream`:    dots[r] = alpha * (row r of A) . x            (the reference's warp-per-row kernel,
//                                                              writing a scratch vector, not y)
//                join, then y[r] += dots[r]                    (add_dots_kernel)
// and the join's event is recorded on the wrong stream: cudaEventRecord(scaled, stream) where it
// meant cudaEventRecord(scaled, side). `stream` waiting for an event recorded on itself orders
// nothing: add_dots_kernel and scale_y_kernel race on y, by CUDA's rules (lab5.cuh: work on a
// stream of your own "is not ordered with it").
//
// Edits to solutions/lab5_gemv/gemv.cu: (1) a non-blocking stream and two events of the file's own,
// made once; (2) the warp-per-row kernel writes alpha * sum to a scratch vector; (3) two small
// kernels, scale_y_kernel and add_dots_kernel; (4) gemv_fast: scratch from cudaMallocAsync on
// `stream`, the fork (correct), the scaling on the side stream, the dots on `stream`, the join
// recorded on `stream` (the typo), the add, the scratch freed on `stream`.
//
// Why it passes now (HEAD a8e38d7). Every event the serving thread records in a shaken call is
// followed at once on its own stream by a 500 us wait kernel (launch_watch.cpp:241-255,
// remote.cu:884-890, runner_main.cpp:55-60). Both of this file's records are on `stream`, so two
// holds sit in front of the add that should have waited for the side stream:
//   `stream`: [shake H_s][record forked][HOLD 500][dots kernel][record scaled][HOLD 500][add]
//   side:     [shake H_side][wait forked][scale y]
// The add starts at H_s + 1000 us + the dots kernel, at least 1020 us; the scaling ends by
// max(H_side, H_s) + a few us, at most ~510 us (H_s, H_side in 20..500, remote.cu:917). Every
// shaken call comes out right by half a millisecond, the 2^32-element check (65537 rows: a 0.5 MB
// scaling) included. The timed runs are unshaken but verified (problem.hpp:126-165): there the
// scaling (rows doubles, a few us) runs beside the dots kernel, which streams all of A (1.1 ms at
// 20000 x 20000 on an H100) before the add can start: right too.
// Before 0ee3d27 the same file failed step4.correct: the add followed the dots kernel at once
// (tens of us at the check's shapes), so in the call of each pair where the side stream was held
// 240 or 480 us longer than `stream` the add read y unscaled and the scaling came after it.
// Today's hold only delays what follows a record on ITS OWN stream: it pulls apart races where a
// waiter on another stream must run late, and buries the mirror race where the recording stream's
// later work must wait for another stream (a join that orders nothing), which before it the shake
// exposed.
//
// Predicted now: 100. Correct: 85 (step4.correct 0; the speed check needs only step 2).
// Confidence: high (prediction: half a millisecond of margin in every shaken call, and the timed
// runs' scaling is done a millisecond before the add); high (verdict).

// Lab 5 reference solution: GEMV with shared memory, row- vs column-major.
// Same functions as labs/lab5_gemv/gemv.cu; lab5.cuh documents them.

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>

namespace lab5 {

namespace {

constexpr int kThreadsPerRowBlock = 128;  // the Numba GEMV notebook's block size for one thread per row

unsigned int blocks_for(std::size_t threads, int per_block) {
  return static_cast<unsigned int>((threads + per_block - 1) / per_block);
}

// Edit (1): a non-blocking stream of this file's own for the scaling of y, an event to fork it
// from `stream` and one meant to join it back, made once.
struct Side {
  cudaStream_t stream = nullptr;
  cudaEvent_t forked = nullptr;
  cudaEvent_t scaled = nullptr;
};
const Side& side() {
  static const Side made = [] {
    Side s;
    MEMLAB_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&s.forked, cudaEventDisableTiming));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&s.scaled, cudaEventDisableTiming));
    return s;
  }();
  return made;
}

}  // namespace

// ---- Step 1: one thread per row, row-major ----------------------------------

// Memory pattern: thread r walks row r, which is contiguous; but at each step
// the 32 threads of a warp read 32 different rows, cols * 8 bytes apart: 32
// sectors per load, of which each thread uses 8 bytes now (the rest, with luck,
// from L1 on its next three loads). x[c] is the same for the whole warp.
__global__ void gemv_row_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                      const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  const double* line = a + row * cols;
  double sum = 0.0;
  for (std::size_t c = 0; c < cols; ++c) sum += line[c] * x[c];
  y[row] = alpha * sum + beta * y[row];
}

void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                    double beta, double* y, cudaStream_t stream) {
  gemv_row_major_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 2: one thread per row, column-major -----------------------------------

// Memory pattern: at each step the 32 threads of a warp read 32 consecutive
// elements of column c: 256 bytes, 8 sectors, all used (coalesced).
__global__ void gemv_column_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  double sum = 0.0;
  for (std::size_t c = 0; c < cols; ++c) sum += a[c * rows + row] * x[c];
  y[row] = alpha * sum + beta * y[row];
}

void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream) {
  gemv_column_major_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 3: x through a window in shared memory ---------------------------------

// Memory pattern: as step 2 for A. x is read from global memory once per block
// (each thread copies one element per window) instead of once per thread.
__global__ void gemv_shared_x_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                     const double* x, double beta, double* y) {
  __shared__ double window[kThreadsPerRowBlock];
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kThreadsPerRowBlock) + threadIdx.x;
  const bool in_matrix = row < rows;  // threads past the last row still help load x and reach the barriers
  double sum = 0.0;
  for (std::size_t start = 0; start < cols; start += kThreadsPerRowBlock) {
    const std::size_t c = start + threadIdx.x;
    window[threadIdx.x] = c < cols ? x[c] : 0.0;
    __syncthreads();  // read after write: the whole window is loaded
    const std::size_t width = cols - start < kThreadsPerRowBlock ? cols - start : kThreadsPerRowBlock;
    if (in_matrix) {
      for (std::size_t j = 0; j < width; ++j) sum += a[(start + j) * rows + row] * window[j];
    }
    __syncthreads();  // write after read: nobody reloads the window while others still read it
  }
  if (in_matrix) y[row] = alpha * sum + beta * y[row];
}

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream) {
  gemv_shared_x_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 4: a warp per row -----------------------------------------------------

constexpr int kWarpSize = 32;
constexpr unsigned int kFullWarp = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;

Layout fast_layout() { return Layout::row_major; }

// Memory pattern: the warp of row r reads row r, 32 consecutive doubles per
// step (coalesced), and the same 32 elements of x; 32 times the threads of
// step 1, so enough loads are in flight to keep DRAM busy. The lanes' partial
// sums are added with shuffles.
// Edit (2): writes alpha * sum to dots[row]; y is scaled and added to apart (edits 3 and 4).
__global__ void gemv_warp_per_row_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double* dots) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  const unsigned int lane = threadIdx.x % kWarpSize;
  if (row >= rows) return;  // the whole warp leaves together: the shuffles below need all 32 lanes
  const double* line = a + row * cols;
  double sum = 0.0;
  for (std::size_t c = lane; c < cols; c += kWarpSize) sum += line[c] * x[c];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
  if (lane == 0) dots[row] = alpha * sum;
}

// Edit (3): y *= beta (on the side stream), and y += dots (on `stream`, after the join).
constexpr int kThreadsPerVectorBlock = 256;
__global__ void scale_y_kernel(std::size_t rows, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row < rows) y[row] *= beta;
}
__global__ void add_dots_kernel(std::size_t rows, const double* dots, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row < rows) y[row] += dots[row];
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  // Edit (4): the scaling of y forked to the side stream, beside the matrix pass on `stream`.
  if (rows == 0) return;
  const Side& s = side();
  double* dots = nullptr;
  MEMLAB_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dots), rows * sizeof(double), stream));
  MEMLAB_CHECK(cudaEventRecord(s.forked, stream));  // the fork: y as the caller's work on `stream` left it
  MEMLAB_CHECK(cudaStreamWaitEvent(s.stream, s.forked, 0));
  scale_y_kernel<<<blocks_for(rows, kThreadsPerVectorBlock), kThreadsPerVectorBlock, 0, s.stream>>>(rows, beta, y);
  MEMLAB_CHECK_LAUNCH();
  gemv_warp_per_row_kernel<<<blocks_for(rows, kWarpsPerBlock), kWarpsPerBlock * kWarpSize, 0, stream>>>(
      rows, cols, alpha, a, x, dots);
  MEMLAB_CHECK_LAUNCH();
  // The join, meant to be recorded on s.stream after the scaling: recorded on `stream`, it orders nothing.
  MEMLAB_CHECK(cudaEventRecord(s.scaled, stream));
  MEMLAB_CHECK(cudaStreamWaitEvent(stream, s.scaled, 0));
  add_dots_kernel<<<blocks_for(rows, kThreadsPerVectorBlock), kThreadsPerVectorBlock, 0, stream>>>(rows, dots, y);
  MEMLAB_CHECK_LAUNCH();
  MEMLAB_CHECK(cudaFreeAsync(dots, stream));
}

}  // namespace lab5
