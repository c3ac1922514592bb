// Session 17: this copy names the helpers read/write (sed of the fair file beside it), which the
// source scan refused as POSIX calls until they were left to the build's imports. Expected: as its twin.
// Red team 27, lab 5, file 03 (fair; the scan's false positive, second form):
// step 3's window wrapped in a small struct with two methods,
//     struct Window { double* slots; __device__ void write(...); __device__ double read(...) const; };
// blocks of 256 threads and a window of 256; steps 1 and 2 with 256-thread blocks
// too; step 4 a warp per row.
//
// Expected as written: 100, fairly sure.
//  - step3.correct: the methods are inlined; the window is a __shared__ array, so
//    the stores are STS and the loads LDS (uses_shared_memory).
//  - step2.speed / step3.speed: 79 blocks of 8 warps at 20000 rows; the guide's
//    block-size table shows one thread per row at the same speed for 128 and 256
//    threads (987 and 984 GB/s row-major; the busiest SM has 8 warps either way).
//
// The flaw: the same file with the methods named `write` and `read` (the words
// a student is likely to choose for a window's two operations) is refused by
// the scan as "reading files or running programs": forbidden API, 0 of 100.
// grader/memlab_grader/scan.py:48 (_FILE_CALLS) and :448-452 (_is_call): the
// in-class definitions `void write(unsigned i, double v)` and
// `double read(unsigned j) const` are `name(` after a type, which _is_call takes
// for a call; only `.read(` and `->read(` are let through. The first look
// (scan_source) and the second (scan_preprocessed) both name them.

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>

namespace lab5 {

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kWarp = 32;

unsigned blocks(std::size_t threads) { return static_cast<unsigned>((threads + kBlock - 1) / kBlock); }

}  // namespace

// ---- Steps 1 and 2 --------------------------------------------------------------

__global__ void row_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                                 double beta, double* y) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(kBlock) + threadIdx.x;
  if (r >= rows) return;
  double acc = 0.0;
  for (std::size_t c = 0; c < cols; ++c) acc += a[r * cols + c] * x[c];
  y[r] = alpha * acc + beta * y[r];
}

void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                    double beta, double* y, cudaStream_t stream) {
  row_major_kernel<<<blocks(rows), kBlock, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

__global__ void column_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                    const double* x, double beta, double* y) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(kBlock) + threadIdx.x;
  if (r >= rows) return;
  double acc = 0.0;
  for (std::size_t c = 0; c < cols; ++c) acc += a[c * rows + r] * x[c];
  y[r] = alpha * acc + beta * y[r];
}

void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream) {
  column_major_kernel<<<blocks(rows), kBlock, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 3 -------------------------------------------------------------------

// A block's window of x in shared memory.
struct Window {
  double* slots;
  __device__ void write(unsigned i, double value) { slots[i] = value; }
  __device__ double read(unsigned j) const { return slots[j]; }
};

__global__ void shared_x_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                                double beta, double* y) {
  __shared__ double slots[kBlock];
  Window window{slots};
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(kBlock) + threadIdx.x;
  double acc = 0.0;
  for (std::size_t base = 0; base < cols; base += kBlock) {
    window.write(threadIdx.x, base + threadIdx.x < cols ? x[base + threadIdx.x] : 0.0);
    __syncthreads();
    const std::size_t left = cols - base;
    const unsigned n = left < kBlock ? static_cast<unsigned>(left) : kBlock;
    if (r < rows) {
      for (unsigned j = 0; j < n; ++j) acc += a[(base + j) * rows + r] * window.read(j);
    }
    __syncthreads();
  }
  if (r < rows) y[r] = alpha * acc + beta * y[r];
}

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream) {
  shared_x_kernel<<<blocks(rows), kBlock, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 4 -------------------------------------------------------------------

Layout fast_layout() { return Layout::row_major; }

__global__ void warp_row_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                                double beta, double* y) {
  const std::size_t r = (blockIdx.x * static_cast<std::size_t>(kBlock) + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  double acc = 0.0;
  for (std::size_t c = lane; c < cols; c += kWarp) acc += a[r * cols + c] * x[c];
  for (unsigned d = 16; d > 0; d >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, d);
  if (lane == 0) y[r] = alpha * acc + beta * y[r];
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  warp_row_kernel<<<blocks(rows * kWarp), kBlock, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
