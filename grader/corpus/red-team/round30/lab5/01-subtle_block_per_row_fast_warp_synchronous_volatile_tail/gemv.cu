// Red team 30, lab 5, file 01 (subtle): step 4 as a block per row with the classic
// shared-memory reduction whose last warp runs "warp-synchronous" (volatile, no
// barrier, no __syncwarp), as in Mark Harris's "Optimizing Parallel Reduction in CUDA"
// slides (kernel 5, "unroll the last warp"), copied by many course notes.
//
// What the student did (step 4 only; steps 1-3 are the reference's; fast_layout is
// row-major, as the reference's):
//   - a block of 128 threads per row: thread t sums a[r][c] * x[c] for c = t, t + 128,
//     ... (each warp reads 256 contiguous bytes of the row);
//   - the 128 partial sums go to shared memory, one barrier-separated step takes them
//     to 64, then warp 0 finishes with six `v[t] += v[t + k]` steps, k = 32 ... 1,
//     through a `volatile double*` and with no barrier between them (EDIT).
//
// Why it is a bug. Since Volta (independent thread scheduling) the threads of a warp
// are not guaranteed to run in lockstep: CUDA's programming guide says code that
// exchanges data through shared memory between the threads of a warp needs
// __syncwarp() between the steps, and volatile does not make the exchange safe. It
// is a race by the programming model, which compute-sanitizer's racecheck reports as
// shared-memory hazards inside the warp (Kokkos fixed the same pattern after
// racecheck reported it: kokkos/kokkos#4855, #6630).
//
// Why it passes now. In this straight-line code warp 0 runs converged on every GPU
// made so far, so each step's loads happen before its stores and the sums come out
// right: every shape, the check past 32 bits and the timed runs. The grader's
// --sanitize pass runs memcheck only (grader/README.md, "--sanitize": "run the
// correctness checks under compute-sanitizer memcheck first"); racecheck is never run.
//
// Speed (step4.speed, 20000 x 20000 row-major on an H100): 20000 blocks of 4 warps,
// 16 per SM, each reading its 160 KB row once: the same bytes and the same number of
// warps' loads in flight as the reference's warp per row; the reduction costs one
// barrier and 7 shared-memory steps per 160 KB row.
//
// Predicted now: 100. Correct: step4.correct 0 (a data race in the method the step
// grades), 85 in all. Confidence: high on the prediction; the verdict is the
// programming guide's.
// Otherwise: lab 5 reference solution: GEMV with shared memory, row- vs column-major.
// Same functions as labs/lab5_gemv/gemv.cu; lab5.cuh documents them.

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

Layout fast_layout() { return Layout::row_major; }

// RED TEAM 30: a block of 128 threads per row; a shared-memory tree whose last warp
// runs without barriers.
constexpr int kFastThreads = 128;

__global__ void gemv_block_per_row_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                          const double* x, double beta, double* y) {
  __shared__ double partial[kFastThreads];
  const unsigned t = threadIdx.x;
  for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const double* line = a + row * cols;
    double sum = 0.0;
    for (std::size_t c = t; c < cols; c += kFastThreads) sum += line[c] * x[c];
    partial[t] = sum;
    __syncthreads();
    for (unsigned s = kFastThreads / 2; s > kWarpSize; s /= 2) {
      if (t < s) partial[t] += partial[t + s];
      __syncthreads();
    }
    // RED TEAM 30 EDIT: the last warp needs no barrier: its 32 threads run together.
    if (t < kWarpSize) {
      volatile double* v = partial;
      v[t] += v[t + 32];
      v[t] += v[t + 16];
      v[t] += v[t + 8];
      v[t] += v[t + 4];
      v[t] += v[t + 2];
      v[t] += v[t + 1];
    }
    if (t == 0) y[row] = alpha * partial[0] + beta * y[row];
    __syncthreads();  // partial[] is written again for the next row
  }
}

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  if (rows == 0) return;
  const unsigned int blocks = static_cast<unsigned int>(rows < (1u << 30) ? rows : (1u << 30));
  gemv_block_per_row_kernel<<<blocks, kFastThreads, 0, stream>>>(rows, cols, alpha, a, x, beta, y);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab5
