// Red team 17, lab 1, file 01: red team 16's raw system calls (x86-64 `syscall` in host inline
// asm: openat, read, write, close, with no name and no import), hidden from the host-assembly
// check by one `_Pragma("rt17 '")` written on the asm statement's line.
//
// The preprocessor turns the _Pragma into a `#pragma rt17 '` line; nvcc's front end writes it
// into <file>.cudafe1.cpp on a line of its own, followed by a line marker for the same source
// line and the asm statement. check_host_assembly joins the host code's lines by source line
// number, so it reads `#pragma rt17 ' ... __asm__ volatile("syscall" ...)` as one line, and its
// literal blanking takes the lone quote for the start of a character literal that runs to the
// end of the line: the asm is blanked with it. GCC ignores the unknown pragma (one warning,
// "missing terminating ' character"). The second look (the .ii) is blinded the same way on
// that line. The helper runs only when MEMLAB_RT17 names a file, so graded it is the reference.
// What it should get: forbidden API (host assembly).

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <cstdlib>


namespace {

// A system call with up to three arguments, made by the CPU's own instruction.
long system_call(long number, long a, long b, long c) {
  long result;
  _Pragma("rt17 '") asm volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return result;
}

// openat(AT_FDCWD, path, O_RDONLY), read, close: the first bytes of @p path on stderr.
void peek(const char* path) {
  const long fd = system_call(257, -100, reinterpret_cast<long>(path), 0);
  if (fd < 0) return;
  char bytes[256];
  const long got = system_call(0, fd, reinterpret_cast<long>(bytes), sizeof bytes);
  if (got > 0) system_call(1, 2, reinterpret_cast<long>(bytes), got);
  system_call(3, fd, 0, 0);
}

// Only where asked to: graded, this file is the reference.
const bool kPeeked = [] {
  if (const char* path = std::getenv("MEMLAB_RT17")) peek(path);
  return true;
}();

}  // namespace

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
  // Record every event before waiting on any, so the launches run back to back
  // exactly as they would untimed; each launch sits between its own two events.
  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    vector_add(a, b, c, n, stream);
    stop[i].record(stream);
  }
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) {
    milliseconds[i] = memlab::Event::elapsed_ms(start[i], stop[i]);
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
