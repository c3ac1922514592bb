/// @file lab4.cuh
/// @brief Lab 4, naive vs shared-memory tiled matrix multiply: the functions
/// you write in matmul.cu, which the grader calls.
///
/// Read this file; do not edit it. Everything you write goes in matmul.cu. The
/// class grader (`make grade`) compiles your matmul.cu against the course's copy
/// of this header, so a change here would change what `make lab4` measures
/// but not your grade.
///
/// Each function launches its own kernels, from the thread that calls it: the
/// grader watches which kernels each call launches, and a launch from a thread
/// of your own fails the check that made the call.
///
/// Every array the grader passes starts an allocation of its own, aligned at least
/// as cudaMalloc aligns (256 bytes): a vector load (float4, double2) from an array's
/// start needs no alignment test. A row of a matrix is aligned only as far as
/// the matrix's width allows.
///
/// Every matrix is square, width x width floats, row-major: element (r, c) is
/// m[r * width + c]. Every multiply computes c = a x b, writes all of c and
/// nothing past it, enqueues its work on @p stream and returns without waiting.
/// Widths go up to 16384 (so r * width + c fits in an int).
/// @p stream is a non-blocking stream: work enqueued anywhere else (on the
/// default stream by cudaMemsetAsync or cudaMemcpyAsync without a stream, or by
/// a launch with none; on a stream of your own) is not ordered with it, and the
/// grader's correctness checks hold @p stream, the default stream and each
/// non-blocking stream your code made in earlier calls for a different time,
/// in an order that changes from call to call, so work that depends across
/// them comes out wrong there. They also hold a stream for longer still
/// right after each event recorded on it, so work that waits for an event
/// recorded before what it needs runs first.
#pragma once

#include <cuda_runtime.h>

/// Lab 4, naive vs shared-memory tiled matrix multiply: what the student writes and the grader calls (guide: \ref lab4).
namespace lab4 {

/// Step 1: one thread per element of c, on a 2D grid of 2D blocks; each thread
/// reads its row of a and its column of b straight from global memory.
void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream);

/// Steps 2 and 3: the tile width of matmul_tiled, fixed when the file is compiled.
constexpr int kTileWidth = 16;

/// Step 2: one kTileWidth x kTileWidth block per tile of c; the block copies a
/// tile of a and a tile of b into shared memory per phase, and each thread reads
/// its kTileWidth products from there. Step 3: correct for any width.
void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream);

/// Step 4: the tile width for @p device: the largest of 32, 16 and 8 for which
/// a tile_width x tile_width block is allowed (device.maxThreadsPerBlock) and
/// two tile_width x tile_width float tiles fit in the shared memory a block may
/// use (device.sharedMemPerBlock); 0 if none is.
int choose_tile_width(const cudaDeviceProp& device);

/// Step 4: matmul_tiled with the tile width given at run time (8, 16 or 32):
/// the tiles live in one `extern __shared__` array sized by the launch's third
/// parameter.
void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream);

/// Step 5: the tiled kernels in seed_bugs.cu, each with one typical mistake
/// seeded into it.
enum class SeedBug {
  plus_for_times,              ///< adds a's element to b's instead of multiplying
  phases_by_integer_division,  ///< the phase count is width / kTileWidth, rounded down
  no_zero_fill,                ///< out-of-range tile elements are skipped, not set to 0
  unguarded_store,             ///< every thread writes c, even outside the matrix
  no_barrier_after_loading,    ///< the first __syncthreads() is missing
  no_barrier_after_computing,  ///< the second __syncthreads() is missing
};

/// Step 5: what catches a bug for certain.
enum class Detector {
  step2_check,  ///< the grader's step 2 check: wrong even when width is a multiple of the tile
  step3_check,  ///< the grader's step 3 check: right at multiples of the tile, wrong at other widths
  racecheck,    ///< compute-sanitizer racecheck: a race, which the checks catch only when timing lets it show
};

/// Step 5: your answer for each bug: which detector catches it for certain.
Detector caught_by(SeedBug bug);

/// Step 6 (stretch): the tile of c that one block of matmul_fast computes.
struct BlockTile {
  int rows = 0;  ///< rows of c per block
  int cols = 0;  ///< columns of c per block
};

/// Step 6 (stretch): a faster multiply: each thread computes several elements
/// of c from values it holds in registers (thread coarsening, register tiling).
void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream);

/// Step 6: the block tile matmul_fast uses (for the roofline plot: a block that
/// computes rows x cols elements of c reads rows + cols floats per step of k).
BlockTile fast_block_tile();

}  // namespace lab4
