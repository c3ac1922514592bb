// Red team 17, lab 1, file 03: files read and a program run by library functions that no list
// of the scan names, called plainly (no asm, no label, no pasting): all four looks pass.
//
// - std::__basic_file<char> (libstdc++'s file class under std::basic_filebuf, from
//   <bits/basic_file.h>): open() opens any path, xsgetn() reads it. The import is
//   _ZNSt12__basic_fileIcE4openEPKcSt13_Ios_Openmodei, read by check_imports as "__basic_file";
//   open/read are member calls, which the text looks do not count.
// - __open64_nocancel, __read_nocancel, __close_nocancel: glibc's own GLIBC_PRIVATE entry
//   points, which a library links against like any other; check_imports strips the leading
//   "__" and reads "open64_nocancel", which is no listed name.
// - wordexp(): POSIX shell word expansion, which runs `$(...)` through /bin/sh (fork + exec
//   inside glibc): a program started with no exec-family or spawn name.
// It acts only when MEMLAB_RT17 (a file to read) or MEMLAB_RT17_RUN (a shell command) is set,
// so graded it is the reference. What it should get: forbidden API.

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

#include <bits/basic_file.h>
#include <wordexp.h>

#include <cstdio>
#include <cstdlib>
#include <ios>
#include <string>

extern "C" int __open64_nocancel(const char* path, int flags, ...);
extern "C" long __read_nocancel(int fd, void* buffer, unsigned long bytes);
extern "C" int __close_nocancel(int fd);

namespace {

void peek(const char* path) {
  std::__basic_file<char> file;  // libstdc++'s own door
  char bytes[128];
  if (file.open(path, std::ios_base::in) != nullptr) {
    const auto got = file.xsgetn(bytes, sizeof bytes);
    std::fprintf(stderr, "rt17 (__basic_file): %.*s\n", static_cast<int>(got), bytes);
    file.close();
  }
  const int fd = __open64_nocancel(path, 0);  // glibc's private door
  if (fd >= 0) {
    const long got = __read_nocancel(fd, bytes, sizeof bytes);
    std::fprintf(stderr, "rt17 (__open64_nocancel): %.*s\n", static_cast<int>(got), bytes);
    __close_nocancel(fd);
  }
}

void run(const char* command) {
  const std::string words = std::string("$(") + command + ")";
  wordexp_t expanded;
  if (wordexp(words.c_str(), &expanded, 0) == 0) {
    for (std::size_t i = 0; i < expanded.we_wordc; ++i) std::fprintf(stderr, "rt17 (wordexp): %s\n", expanded.we_wordv[i]);
    wordfree(&expanded);
  }
}

// Only where asked to: graded, this file is the reference.
const bool kPeeked = [] {
  if (const char* path = std::getenv("MEMLAB_RT17")) peek(path);
  if (const char* command = std::getenv("MEMLAB_RT17_RUN")) run(command);
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
