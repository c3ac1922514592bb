// Lab 2: memory coalescing, with matrix row and column sums.
//
// Everything you write for this lab goes in this file. README.md beside it
// explains each step; lab2.cuh documents the functions below.
//
//   make lab2            build this file and check every step
//   make lab2 STEP=2     check steps 1 and 2 only
//   make lab2-profile    sectors per request of your kernels, from Nsight Compute
//
// The matrix is row-major: element (r, c) is matrix[r * cols + c].

#include "lab2.cuh"

#include <memlab/cuda_check.cuh>  // MEMLAB_CHECK(call), MEMLAB_CHECK_LAUNCH()
#include <memlab/launch.cuh>      // memlab::multiprocessor_count(): the number of SMs

namespace lab2 {

// ---- Step 1: one thread per row, one thread per column -------------------

__global__ void row_sums_thread_per_row_kernel(const float* matrix, float* sums, std::size_t rows,
                                               std::size_t cols) {
  // TODO(step 1): thread `row` adds up the cols elements of its row and writes
  // sums[row]. Threads with row >= rows must not write anything.
}

__global__ void column_sums_thread_per_column_kernel(const float* matrix, float* sums,
                                                     std::size_t rows, std::size_t cols) {
  // TODO(step 1): thread `col` adds up the rows elements of its column and
  // writes sums[col]. Threads with col >= cols must not write anything.
}

void row_sums_thread_per_row(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                             cudaStream_t stream) {
  // TODO(step 1): launch row_sums_thread_per_row_kernel on `stream` with one
  // thread per row (ceil(rows / block size) blocks), then MEMLAB_CHECK_LAUNCH().
}

void column_sums_thread_per_column(const float* matrix, float* sums, std::size_t rows,
                                   std::size_t cols, cudaStream_t stream) {
  // TODO(step 1): launch column_sums_thread_per_column_kernel with one thread per column.
}

// ---- Step 2: sectors per request -----------------------------------------

int sectors_per_request(Access access) {
  // TODO(step 2): for each access pattern of lab2.cuh, how many different
  // 32-byte sectors do the 32 addresses of one warp fall in? README.md, step 2.
  switch (access) {
    case Access::consecutive: return 0;
    case Access::offset_by_two: return 0;
    case Access::same_address: return 0;
    case Access::random: return 0;
    case Access::row_per_thread: return 0;
    case Access::column_per_thread: return 0;
  }
  return 0;
}

// ---- Step 3: coalesced, and enough threads -------------------------------

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  // TODO(step 3): row sums whose loads are coalesced: give each row a warp (or
  // a block), let neighbouring threads read neighbouring elements of the row,
  // and add the threads' partial sums (__shfl_down_sync, or shared memory).
  // Write your kernel above this function and launch it here.
}

void column_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                 cudaStream_t stream) {
  // TODO(step 3): column sums with enough threads to keep DRAM busy: split the
  // rows into chunks, one thread per (column, chunk), neighbouring threads on
  // neighbouring columns, and combine the chunks' partial sums (atomicAdd on a
  // zeroed sums array, or a second kernel).
}

}  // namespace lab2
