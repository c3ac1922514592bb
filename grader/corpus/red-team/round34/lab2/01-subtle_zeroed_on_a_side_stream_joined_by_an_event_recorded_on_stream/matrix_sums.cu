// Red team 34, lab 2, file 01 (subtle: a race that today's hold after each event record HIDES).
// The reference, except that column_sums zeroes `sums` on a non-blocking stream of the file's own
// (made once) and means `stream` to wait for that zeroing by an event, but records the event on
// the wrong stream: cudaEventRecord(zeroed, stream) where it meant cudaEventRecord(zeroed, side).
// An event recorded on `stream` and then waited for by `stream` orders nothing: the zeroing on the
// side stream and the atomicAdds of the sums on `stream` race, by CUDA's rules (lab2.cuh: "work
// enqueued ... on a stream of your own is not ordered with it").
//
// Edits to solutions/lab2_coalescing/matrix_sums.cu: (1) a non-blocking stream and an event of
// the file's own, made once; (2) in column_sums: the memset on that stream, then the join event
// recorded on `stream` (the typo) and waited for by `stream`, then the kernel as in the reference.
//
// Why it passes now (HEAD a8e38d7). Since 0ee3d27 every event the serving thread records in a
// shaken call is followed at once, ON THE STREAM IT WAS RECORDED ON, by a 500 us wait kernel
// (common/memlab/grading/launch_watch.cpp:241-255 on_event, remote.cu:884-890
// hold_after_event_record, runner_main.cpp:55-60). The typo's record is on `stream`, so the hold
// lands in front of the very kernel that should have waited for the other stream:
//   `stream`: [shake hold H_s][record zeroed][HOLD 500 us][no-op wait][column_sums_split_kernel]
//   side:     [shake hold H_side][memset]
// H_s and H_side are 20..500 us (remote.cu:917, kShakeShortestUs/kShakeLongestUs), so the kernel
// starts at H_s + 500 >= 520 us, and the memset ends by H_side + ~2 us <= ~502 us (plus a few us of
// host launch skew between the shake kernels): in EVERY shaken call the zeroing lands first. The
// hold exists to let work that WAITS for an event run first; here nothing waits on another stream,
// and the hold only delays the recording stream's own later work, which is the side that must
// lose the race to expose it. Timed (unshaken) calls: the memset is enqueued first on an idle
// stream and the kernel after a record and the grader's L2 flush on `stream`, so it wins there
// too, as round 22's legacy-stream zeroing "nearly always" did (100 in run 95).
// Before 0ee3d27 the same file failed: in the call of each pair where the side stream is held
// longer than `stream` (by 240 or 480 us, three streams held: `stream`, legacy, side), the sums
// were added up long before the zeroing wiped them (round 31's file 01, the same race with the
// zeroing on the legacy stream, failed step3.columns, run 129). Today's change turns a caught race
// into an uncatchable one whenever the racing stream records an event before the dependent work.
// Margin: in the worst parity (side 500 us, `stream` 20 us) about 10-18 us, the shake kernels'
// launch skew and the memset's ~2 us taken off the 20 us difference.
//
// Predicted now: 100. Correct: step3.columns 0 (about 65-85, as round 31's files), a race by
// CUDA's rules that the header says the checks are there to catch.
// Confidence: medium-high (prediction: the margin above is ~10 us in one call of three pairs in
// six; never negative by the shake's arithmetic); high (verdict).

// Lab 2 reference solution: memory coalescing with matrix row and column sums.
//
// Same interface as labs/lab2_coalescing/matrix_sums.cu (declared in lab2.cuh).
// The grader runs it beside the student's file and compares the two.

#include "lab2.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>

namespace lab2 {

namespace {

// Edit (1): a non-blocking stream of this file's own for the zeroing, and an event meant to join
// it back to `stream`, made once.
struct Side {
  cudaStream_t stream = nullptr;
  cudaEvent_t zeroed = nullptr;
};
const Side& side() {
  static const Side made = [] {
    Side s;
    MEMLAB_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&s.zeroed, cudaEventDisableTiming));
    return s;
  }();
  return made;
}

constexpr int kThreadsPerBlock = 256;
constexpr int kWarpSize = 32;

std::size_t blocks_for(std::size_t threads) { return (threads + kThreadsPerBlock - 1) / kThreadsPerBlock; }

// ---- Step 1: one thread per row or column -------------------------------

// Memory pattern: thread t walks along row t. At each step the 32 threads of a
// warp load from 32 different rows, cols * 4 bytes apart: 32 sectors per
// request, of which 4 bytes each are used. Only `rows` threads run.
__global__ void row_sums_thread_per_row_kernel(const float* matrix, float* sums, std::size_t rows,
                                               std::size_t cols) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (std::size_t c = 0; c < cols; ++c) sum += matrix[row * cols + c];
  sums[row] = sum;
}

// Memory pattern: thread t walks down column t. At each step the 32 threads of
// a warp load 32 neighbouring floats of one row: 128 bytes, 4 sectors, every
// byte used. Coalesced, but still only `cols` threads run.
__global__ void column_sums_thread_per_column_kernel(const float* matrix, float* sums,
                                                     std::size_t rows, std::size_t cols) {
  const std::size_t col = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (col >= cols) return;
  float sum = 0.0f;
  for (std::size_t r = 0; r < rows; ++r) sum += matrix[r * cols + col];
  sums[col] = sum;
}

// ---- Step 3: coalesced and parallel -------------------------------------

constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

// Memory pattern: one warp per row. Lane l loads columns l, l + 32, l + 64, ...,
// so at every step the warp loads 32 neighbouring floats of its row (4 sectors,
// every byte used), and rows / 8 blocks keep every SM busy. The 32 partial sums
// are then added across the warp with shuffles, without touching memory.
__global__ void row_sums_warp_per_row_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                             std::size_t rows, std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;  // the whole warp leaves together: the shuffles below need all 32 lanes
  const float* line = matrix + row * cols;
  float sum = 0.0f;
  for (std::size_t c = lane; c < cols; c += kWarpSize) sum += line[c];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) sums[row] = sum;
}

// A block covers kTileColumns neighbouring columns and one chunk of rows.
constexpr int kTileColumns = 32;                               // one warp's width: coalesced loads
constexpr int kRowLanes = kThreadsPerBlock / kTileColumns;     // threads down each column in a block

// Memory pattern: thread (column_in_tile, row_lane) of a block sums rows
// first + row_lane, first + row_lane + 8, ... of one column. The 32 threads of
// a warp share row_lane and take 32 neighbouring columns, so each load is 128
// contiguous bytes. Splitting the rows into chunks gives cols / 32 * chunks
// blocks, enough to fill the GPU even when there are few columns. Each block
// adds its 8 partial sums per column in shared memory and then adds the result
// to sums[col] with one atomicAdd: chunks of the same column meet there.
__global__ void column_sums_split_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                         std::size_t rows, std::size_t cols, std::size_t rows_per_chunk) {
  __shared__ float partial[kRowLanes][kTileColumns];
  const unsigned column_in_tile = threadIdx.x % kTileColumns;
  const unsigned row_lane = threadIdx.x / kTileColumns;
  const std::size_t col = blockIdx.x * static_cast<std::size_t>(kTileColumns) + column_in_tile;
  const std::size_t first = blockIdx.y * rows_per_chunk;
  const std::size_t end = first + rows_per_chunk < rows ? first + rows_per_chunk : rows;
  float sum = 0.0f;
  if (col < cols) {
    for (std::size_t r = first + row_lane; r < end; r += kRowLanes) sum += matrix[r * cols + col];
  }
  partial[row_lane][column_in_tile] = sum;
  __syncthreads();  // every partial sum written before row lane 0 reads them
  if (row_lane == 0 && col < cols) {
    float total = 0.0f;
    for (int lane = 0; lane < kRowLanes; ++lane) total += partial[lane][column_in_tile];
    atomicAdd(&sums[col], total);
  }
}

}  // namespace

void row_sums_thread_per_row(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                             cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_thread_per_row_kernel<<<blocks_for(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

void column_sums_thread_per_column(const float* matrix, float* sums, std::size_t rows,
                                   std::size_t cols, cudaStream_t stream) {
  if (cols == 0) return;
  column_sums_thread_per_column_kernel<<<blocks_for(cols), kThreadsPerBlock, 0, stream>>>(matrix, sums,
                                                                                          rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

int sectors_per_request(Access access) {
  // A sector is 32 bytes: 8 floats. The warp asks for 32 floats; what counts is
  // how many different sectors their addresses fall in.
  switch (access) {
    case Access::consecutive: return 4;         // 128 contiguous, aligned bytes: sectors 0-3 of one line
    case Access::offset_by_two: return 5;       // 2 floats in the sector before, 30 in the next four
    case Access::same_address: return 1;        // one float, one sector, broadcast to all threads
    case Access::random: return 32;             // in 400 MB, two threads almost never share a sector
    case Access::row_per_thread: return 32;     // rows are 64 KiB apart: one sector per thread
    case Access::column_per_thread: return 4;   // 32 neighbouring floats of one row
  }
  return 0;
}

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  const std::size_t blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  row_sums_warp_per_row_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

void column_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                 cudaStream_t stream) {
  if (cols == 0) return;
  // Edit (2): zeroed on the file's stream, joined back to `stream` by an event recorded on the
  // wrong stream (meant: s.stream), which `stream` then waits for: a wait for nothing.
  const Side& s = side();
  MEMLAB_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), s.stream));  // the blocks' atomicAdds start from 0
  MEMLAB_CHECK(cudaEventRecord(s.zeroed, stream));
  MEMLAB_CHECK(cudaStreamWaitEvent(stream, s.zeroed, 0));
  if (rows == 0) return;
  // Aim for about 16 blocks per SM, two waves of the 8 that fit at once, so that
  // DRAM always has loads in flight; never chunks of fewer than 64 rows.
  const std::size_t column_tiles = (cols + kTileColumns - 1) / kTileColumns;
  const std::size_t wanted_blocks = std::size_t{16} * memlab::multiprocessor_count();
  const std::size_t chunks = std::clamp<std::size_t>(wanted_blocks / column_tiles, 1,
                                                     std::max<std::size_t>(1, rows / 64));
  const std::size_t rows_per_chunk = (rows + chunks - 1) / chunks;
  const dim3 grid(static_cast<unsigned>(column_tiles), static_cast<unsigned>(chunks));
  column_sums_split_kernel<<<grid, kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols, rows_per_chunk);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace lab2
