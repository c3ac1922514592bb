// Red team 30, lab 5, file 02 (fair): step 3's window of x filled by
// cooperative_groups::memcpy_async, and step 4 as a warp per row with double2 loads.
//
// What the student did:
//   - Step 3 (EDIT 1): each window of x is copied into the __shared__ array by
//     cg::memcpy_async(block, window, x + start, bytes), the last window only its
//     `width` elements, then cg::wait(block) (which waits for the copy and syncs the
//     block), the products from the window, and block.sync() before the next copy.
//     On sm_80 and later the copy is LDGSTS (global to shared, no register); on sm_75
//     it is LDG + STS. The products read the window with LDS.
//   - Step 4 (EDIT 2): the reference's warp per row, with double2 loads of the row and
//     of x when cols is even (every row then starts on 16 bytes: lab5.cuh), scalar
//     loads otherwise.
// Steps 1 and 2 are the reference's.
//
// What this tests. Step 3's method check (uses_shared_memory, machine_code.cpp) counts
// LDGSTS as a store to shared memory and LDS as the read back; both speed checks' timed
// runs are judged call by call (grader.cpp:152-170). The window's tail past `width` is
// never copied and never read. cg::memcpy_async's header pulls in no CUB or Thrust
// (round 27 checked cooperative_groups with nvcc -M).
//
// Speed. Step 3 has the reference's loads of A and barriers (cg::wait is a block sync);
// x is 160 KB and comes from L2 either way. Step 4 moves the same bytes in half the
// load instructions (20000 is even, so the double2 kernel is timed).
//
// Predicted now: 100. Correct: 100. Confidence: high (step 3), medium-high (speed).
// Otherwise: lab 5 reference solution: GEMV with shared memory, row- vs column-major.
// Same functions as labs/lab5_gemv/gemv.cu; lab5.cuh documents them.

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

namespace lab5 {

namespace {

constexpr int kThreadsPerRowBlock = 128;  // the Numba GEMV notebook's block size for one thread per row

unsigned int blocks_for(std::size_t threads, int per_block) {
  return static_cast<unsigned int>((threads + per_block - 1) / per_block);
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
  namespace cg = cooperative_groups;
  __shared__ double window[kThreadsPerRowBlock];
  const cg::thread_block block = cg::this_thread_block();
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kThreadsPerRowBlock) + threadIdx.x;
  const bool in_matrix = row < rows;  // threads past the last row still help copy x and reach the barriers
  double sum = 0.0;
  for (std::size_t start = 0; start < cols; start += kThreadsPerRowBlock) {
    const std::size_t width = cols - start < kThreadsPerRowBlock ? cols - start : kThreadsPerRowBlock;
    // RED TEAM 30 EDIT 1: the whole block copies the window; cg::wait waits for the
    // copy and syncs the block (read after write).
    cg::memcpy_async(block, window, x + start, sizeof(double) * width);
    cg::wait(block);
    if (in_matrix) {
      for (std::size_t j = 0; j < width; ++j) sum += a[(start + j) * rows + row] * window[j];
    }
    block.sync();  // write after read: nobody copies the next window while others still read this one
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
__global__ void gemv_warp_per_row_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  const unsigned int lane = threadIdx.x % kWarpSize;
  if (row >= rows) return;  // the whole warp leaves together: the shuffles below need all 32 lanes
  const double* line = a + row * cols;
  double sum = 0.0;
  // RED TEAM 30 EDIT 2: pairs of doubles when every row starts on 16 bytes.
  if (cols % 2 == 0) {
    const double2* pairs = reinterpret_cast<const double2*>(line);
    const double2* x_pairs = reinterpret_cast<const double2*>(x);
    for (std::size_t p = lane; p < cols / 2; p += kWarpSize) {
      const double2 v = pairs[p];
      const double2 w = x_pairs[p];
      sum += v.x * w.x + v.y * w.y;
    }
  } else {
    for (std::size_t c = lane; c < cols; c += kWarpSize) sum += line[c] * x[c];
  }
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
  if (lane == 0) y[row] = alpha * sum + beta * y[row];
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  gemv_warp_per_row_kernel<<<blocks_for(rows, kWarpsPerBlock), kWarpsPerBlock * kWarpSize, 0, stream>>>(
      rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
