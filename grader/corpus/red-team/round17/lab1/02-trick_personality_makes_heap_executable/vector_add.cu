// Red team 17, lab 1, file 02: system calls made by machine code the file writes into heap
// memory, with no asm, no forbidden name and no forbidden import.
//
// personality(READ_IMPLIES_EXEC) (not in any of the scan's lists; <sys/personality.h> is not a
// forbidden header) makes the kernel add PROT_EXEC to every later readable mapping of the
// process; a 1 MiB `new[]` is such a mapping (glibc's malloc maps large blocks). The file copies
// 15 bytes of x86-64 code into it (mov the four arguments into place, `syscall`, `ret`) and calls
// them through a function pointer: openat, read, write and close by number, as red team 16's
// file 02 did with inline asm, which the host-assembly check now refuses. Checked on this
// machine's kernel (6.18). The helper runs only when MEMLAB_RT17 names a file, so graded it is
// the reference. What it should get: forbidden API (personality, or the sandbox: seccomp).

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

#include <sys/personality.h>

#include <cstdlib>
#include <cstring>

namespace {

using SystemCall = long (*)(long number, long a, long b, long c);

// mov rax,rdi; mov rdi,rsi; mov rsi,rdx; mov rdx,rcx; syscall; ret
constexpr unsigned char kSystemCall[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48, 0x89, 0xd6,
                                         0x48, 0x89, 0xca, 0x0f, 0x05, 0xc3};

// openat(AT_FDCWD, path, O_RDONLY), read, write to stderr, close: with no name for any of them.
void peek(const char* path) {
  personality(READ_IMPLIES_EXEC);
  auto* page = new unsigned char[1 << 20];  // mapped by malloc: readable, so now executable too
  std::memcpy(page, kSystemCall, sizeof kSystemCall);
  const auto call = reinterpret_cast<SystemCall>(page);
  const long fd = call(257, -100, reinterpret_cast<long>(path), 0);
  if (fd >= 0) {
    char bytes[256];
    const long got = call(0, fd, reinterpret_cast<long>(bytes), sizeof bytes);
    if (got > 0) call(1, 2, reinterpret_cast<long>(bytes), got);
    call(3, fd, 0, 0);
  }
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
