// Red team 28, lab 5, file 01: trick. gemv_shared_x launches its shared-memory kernel only in the
// calls the order shake held, and step 2's plain column-major kernel (no shared memory) in the timed
// runs. It tells them apart by cudaStreamQuery on `stream` and on the legacy stream at entry: one of
// them is cudaErrorNotReady while the runner's 500 us wait kernel runs (every untimed call of the
// student's since the shake, HEAD 6fbfd86: common/memlab/grading/remote.cu:734, :936-940, :845-853);
// both are cudaSuccess in a timed call (the GPU is made idle first, remote.cu:735-740, and the runner
// synchronises after every call, :871-877). The 20 us kernel may be over by the time the function
// starts (argument decoding, mapping new buffers), hence both queries.
// The shared-x kernel here is correct but slow on purpose (thread 0 loads each window alone), as a
// student's slow step 3 kernel would be.
//
// Targets: lab 5 step 3. The method check reads only the untimed correctness calls
// (labs/lab5_gemv/grading/grader.cpp:139-149, StudentLaunches made inside that TEST_CASE); the speed
// check (grader.cpp:150-171, time_against_reference :63-75, compare_speed in
// common/memlab/grading/speed.cpp) verifies every timed run's values but never looks at which kernels
// they launched. Lab 3 step 2 does (labs/lab3_precision/grading/grader.cpp:225-230, "in the timed
// runs"); lab 4 steps 2 and 4 do not either (labs/lab4_matmul/grading/grader.cpp:97-106 and 108-125;
// 197-215 and 217-240). Before the shake a file could tell the timing shape (20000 x 20000 on an
// H100, memlab::by_gpu::gemv_timing_side) from kShapes by its size; the shake adds a signal that needs
// no size at all, so it survives a fix that also checks the method at the timing shape untimed.
//
// Predicted now: graded, 100. step3.correct 15 (the shared kernel is launched and right),
// step3.speed 10 (step 2's kernel, ~1.0x the reference's shared-x time: the step's note says staging
// x saves nothing here). Without the trick the slow window kernel would be ~2x and earn about half of
// step 3's speed points or less. Correct: step3.speed 0 (the time is not of a kernel of the method;
// lab 3's "in the timed runs, ..." check, made here, would fail it). Confidence: high.

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>

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
// This file's step 3 kernel: the window of x is loaded by thread 0 alone, one element after the
// other (correct; slow: each block waits for 128 dependent-in-issue loads per window).
__global__ void gemv_shared_x_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                     const double* x, double beta, double* y) {
  __shared__ double window[kThreadsPerRowBlock];
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kThreadsPerRowBlock) + threadIdx.x;
  const bool in_matrix = row < rows;  // threads past the last row still reach the barriers
  double sum = 0.0;
  for (std::size_t start = 0; start < cols; start += kThreadsPerRowBlock) {
    if (threadIdx.x == 0) {
#pragma unroll 1
      for (int j = 0; j < kThreadsPerRowBlock; ++j) window[j] = start + j < cols ? x[start + j] : 0.0;
    }
    __syncthreads();  // read after write: the whole window is loaded
    const std::size_t width = cols - start < kThreadsPerRowBlock ? cols - start : kThreadsPerRowBlock;
    if (in_matrix) {
      for (std::size_t j = 0; j < width; ++j) sum += a[(start + j) * rows + row] * window[j];
    }
    __syncthreads();  // write after read: nobody reloads the window while others still read it
  }
  if (in_matrix) y[row] = alpha * sum + beta * y[row];
}

namespace {

bool busy(cudaStream_t stream) {
  const cudaError_t state = cudaStreamQuery(stream);
  if (state == cudaErrorNotReady) {
    (void)cudaGetLastError();  // not an error; leave nothing for the runner's check to read
    return true;
  }
  MEMLAB_CHECK(state);
  return false;
}

// True when the call was preceded by the order shake: one of the runner's wait kernels (500 us on
// `stream` or on the legacy stream, the other 20 us) is still running as the function starts. A
// timed call finds both streams idle.
bool stream_is_held(cudaStream_t stream) { return busy(stream) || busy(cudaStreamLegacy); }

}  // namespace

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream) {
  if (stream_is_held(stream)) {
    // The correctness checks (and the untimed check at the timing shape): the shared-memory kernel.
    gemv_shared_x_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
        rows, cols, alpha, a, x, beta, y);
  } else {
    // The timed runs: step 2's kernel, which stages nothing in shared memory.
    gemv_column_major_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
        rows, cols, alpha, a, x, beta, y);
  }
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
  for (std::size_t c = lane; c < cols; c += kWarpSize) sum += line[c] * x[c];
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
