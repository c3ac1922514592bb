// Red team 32, lab 2, file 01 (subtle: a race the order shake cannot pull apart). The reference,
// except that column_sums sums on a non-blocking stream of its own (made once), forked from `stream`
// by an event and joined back by another: the textbook fork-join, with the fork's event recorded
// one line too early, BEFORE the cudaMemsetAsync that zeroes `sums` on `stream` rather than after
// it. The kernel's atomicAdds then wait for nothing that orders them after the zeroing: by CUDA's
// rules the zeroing and the sums race, and a zeroing that lands late wipes sums already added.
//
// Edits to solutions/lab2_coalescing/matrix_sums.cu: (1) a stream and two events of the file's own
// (made once); (2) in column_sums: cudaEventRecord(forked, stream) moved above the memset, the
// kernel on the file's stream after cudaStreamWaitEvent(side, forked), then joined back.
//
// Why the shake misses it (HEAD 6e22bdc; common/memlab/grading/remote.cu:871-895, order_shake
// :718-729). The shake holds each stream by a kernel enqueued BEFORE the call: it delays the first
// work of each stream, and everything after follows at the GPU's own pace. The fork event sits on
// `stream` right after its hold, so the side stream's kernel can start no earlier than `stream`'s
// hold ends, which is exactly when the memset starts:
// - calls where the side stream is held longer (its hold is 240 or 480 us past `stream`'s with the
//   three streams held: `stream`, the legacy stream, this one): the memset ran long before. Right.
// - calls where `stream` is held longer (the reversed call of each pair), and the first call (the
//   side stream is made inside it, unheld): both start when `stream`'s hold ends. The memset is
//   next in `stream`'s queue; the kernel must first see the event across streams ("a wait across
//   streams for an event takes a few" us, labs/lab1_caching/grading/timer.cpp:48-54) and then run
//   its blocks before their atomicAdds. The memset of at most 100001 floats (400 KB) is done first:
//   the race comes out as it does unshaken, where red team 22's legacy-stream zeroing "nearly always
//   won" (grader/README.md, stream order).
// No order of holds puts the sums before the zeroing, however the streams are ranked, since the
// misplaced event ties the kernel to the very hold that starts the zeroing. Timed calls are not
// shaken; there the fork fires as soon as `stream` is free (at once, or after a flush of the
// grader's), the same tie, which comes out the same way.
// Known and different (grader/README.md): two blocking streams, a stream made inside the call, a
// wait at entry. Here the stream is non-blocking and made in an earlier call, nothing waits on the
// host, and the shake holds all three streams; the misplaced event undoes it.
//
// Predicted now: 100 (not run on a GPU; at worst a rare step3.columns 0 when a tiny shape's sums
// beat the memset). Correct: step3.columns 0 (65-85; round 31's files 01 and 02, the same race
// with the zeroing on another stream, scored 65, the column speed's check of the timing shape
// lost too): a race by CUDA's rules, the kind lab2.cuh says the checks are there to catch.
// Confidence: medium (the margin in the tied calls is the cross-stream wait's few microseconds
// against a memset of at most 400 KB; shapes of one to three rows add up and atomicAdd at once).

#include "lab2.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>

namespace lab2 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kWarpSize = 32;

// Edit (1): a non-blocking stream of this file's own for the column sums, an event to fork it from
// `stream` and one to join it back, made once.
struct Side {
  cudaStream_t stream = nullptr;
  cudaEvent_t forked = nullptr;
  cudaEvent_t joined = nullptr;
};
const Side& side() {
  static const Side made = [] {
    Side s;
    MEMLAB_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&s.forked, cudaEventDisableTiming));
    MEMLAB_CHECK(cudaEventCreateWithFlags(&s.joined, cudaEventDisableTiming));
    return s;
  }();
  return made;
}

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
  const Side& s = side();
  // Edit (2): the fork, meant to mark "sums zeroed", recorded one line too early.
  MEMLAB_CHECK(cudaEventRecord(s.forked, stream));
  MEMLAB_CHECK(cudaMemsetAsync(sums, 0, cols * sizeof(float), stream));  // the blocks' atomicAdds start from 0
  if (rows == 0) return;
  // Aim for about 16 blocks per SM, two waves of the 8 that fit at once, so that
  // DRAM always has loads in flight; never chunks of fewer than 64 rows.
  const std::size_t column_tiles = (cols + kTileColumns - 1) / kTileColumns;
  const std::size_t wanted_blocks = std::size_t{16} * memlab::multiprocessor_count();
  const std::size_t chunks = std::clamp<std::size_t>(wanted_blocks / column_tiles, 1,
                                                     std::max<std::size_t>(1, rows / 64));
  const std::size_t rows_per_chunk = (rows + chunks - 1) / chunks;
  const dim3 grid(static_cast<unsigned>(column_tiles), static_cast<unsigned>(chunks));
  // Edit (2): summed on the file's stream after the fork, and joined back to `stream`.
  MEMLAB_CHECK(cudaStreamWaitEvent(s.stream, s.forked, 0));
  column_sums_split_kernel<<<grid, kThreadsPerBlock, 0, s.stream>>>(matrix, sums, rows, cols, rows_per_chunk);
  MEMLAB_CHECK_LAUNCH();
  MEMLAB_CHECK(cudaEventRecord(s.joined, s.stream));
  MEMLAB_CHECK(cudaStreamWaitEvent(stream, s.joined, 0));
}

}  // namespace lab2
