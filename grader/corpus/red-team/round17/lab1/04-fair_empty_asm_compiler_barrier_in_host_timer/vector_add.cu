// Red team 17, lab 1, file 04 (fair): the reference, with step 2's timer measured on the host
// (std::chrono::steady_clock around each launch and a stream synchronize), with empty
// `asm volatile("" ::: "memory")` statements as compiler barriers around the clock reads, the
// idiom benchmarking code uses (Google Benchmark's ClobberMemory is this statement). An empty
// asm template emits no instruction and can make no system call, but the host-assembly check
// refuses any asm keyword in host code: the file is "forbidden API".
// What it should get: graded (its timer is checked like any other).

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <chrono>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
// Resident blocks per SM we aim for: 8 x 256 threads fill an SM on most GPUs,
// and the more loads are in flight, the better DRAM latency is hidden.
constexpr int kBlocksPerSm = 8;

// Memory pattern: in each pass, thread t of the grid reads a[i] and b[i] and
// writes c[i] for i = pass * (grid size) + t. Consecutive threads of a warp
// touch consecutive floats, so each warp-wide load is 128 contiguous bytes
// (four 32-byte sectors, every byte used). Each element is read and written
// exactly once: 12 bytes of DRAM traffic per element when nothing is cached.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // The grid-stride loop makes any grid correct for any n; the grid size only
  // sets speed. Enough blocks to fill every SM, but never more than there are
  // elements for.
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  // Host-side timing: each launch is timed from before its launch to after the stream has
  // finished it, on std::chrono's steady clock. The empty asm statements are compiler
  // barriers (the usual benchmarking idiom): they keep the compiler from moving work across
  // the clock reads. They emit no instruction.
  std::vector<float> milliseconds(launches);
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  for (int i = 0; i < launches; ++i) {
    asm volatile("" ::: "memory");
    const auto start = std::chrono::steady_clock::now();
    asm volatile("" ::: "memory");
    vector_add(a, b, c, n, stream);
    MEMLAB_CHECK(cudaStreamSynchronize(stream));
    asm volatile("" ::: "memory");
    const auto stop = std::chrono::steady_clock::now();
    asm volatile("" ::: "memory");
    milliseconds[i] = std::chrono::duration<float, std::milli>(stop - start).count();
  }
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  // Multiples of the L2 size: four that fit in it, one at its size, and three
  // that cannot fit. Below an eighth of L2, launch overhead (a few
  // microseconds) would hide the difference between DRAM and L2.
  std::vector<std::size_t> footprints;
  for (double multiple : {0.125, 0.25, 0.375, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    footprints.push_back(static_cast<std::size_t>(multiple * static_cast<double>(l2_bytes)));
  }
  return footprints;
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  // If a, b and c fit in L2 together, the first launch leaves them there and
  // the next launches read a and b from L2 instead of DRAM. If they do not fit,
  // each launch evicts what the next one needs first, and all launches run at
  // DRAM speed.
  return footprint_bytes <= l2_bytes;
}

}  // namespace lab1
