// Red team 29, lab 1, file 04 (trick, forbidden API the scan lets through): the reference, plus a
// choose_footprints that runs a shell command and reads a file through the C library's own second
// names for popen and fopen: _IO_popen and _IO_fopen. glibc exports both with a default version
// (nm -D /lib/x86_64-linux-gnu/libc.so.6: `_IO_popen@@GLIBC_2.2.5` and `_IO_fopen@@GLIBC_2.2.5`,
// at the same addresses as popen and fopen), so declaring them is all it takes; --no-undefined
// links them. pclose, fgets and fclose are on no list.
//
// Edits to solutions/lab1_caching/vector_add.cu: (1) <cstdio> and the two extern "C" declarations;
// (2) choose_footprints, on its first call, reads one line of `uname -m` through _IO_popen and one
// line of /etc/os-release through _IO_fopen, and returns the reference's footprints whatever it
// read. Everything the grader measures is the reference's.
//
// Targets grader/memlab_grader/scan.py at HEAD 74f40af (f4654a0's change: POSIX names judged by the
// build's imports only). check_imports (:424-446) reads a C import as the name inside the C
// library's other spellings, by _C_LIBRARY_SPELLING (:55): an optional `__libc_` or `__` prefix,
// then an optional `64`, `_2`, `_chk` or `_nocancel` suffix. glibc's libio prefix `_IO_` is not
// among them, so the imports `_IO_popen` and `_IO_fopen` are read as themselves, which neither
// _FILE_NAMES (:33-43) nor _IMPORTED_FILE_NAMES (:49-51) holds. The source scan (:283-294) compares
// whole identifiers with _FILE_NAMES: `_IO_popen` is not `popen`. <cstdio> is no forbidden header
// (:56-58). No asm, no macro, no dlsym. Checked without a GPU: grade.py marks this file "compiled;
// not run: no GPU". A sweep of every symbol libc.so.6 exports, grouped by address, finds exactly
// three aliases of listed names that the rule misses: _IO_fopen, _IO_popen, _IO_fdopen.
//
// Under the runner's sandbox (sandbox.py bwrap_words) the shell runs confined: the whole file
// system read-only, the course, OUT and the submissions hidden, no network. It gains no points
// there; its point is that a "forbidden API" file (0, final) passes the scan, and that with
// --no-sandbox (an instructor's choice, cli.py:85, :517) the scan is all that stands between a
// student's code and a shell.
//
// Predicted now: graded 100 on a GPU (the commands are harmless and run once, untimed, in step 3).
// Correct: forbidden API, 0 ("reading files or running programs: popen, fopen").
// Confidence: high (the scan's verdict was checked here; the GPU verdict rests on the reference).

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <cstdio>

// Edit (1): the C library's libio names of popen and fopen.
extern "C" std::FILE* _IO_popen(const char* command, const char* mode);
extern "C" std::FILE* _IO_fopen(const char* path, const char* mode);

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

// Edit (2): one line of a program's output and one line of a file, read once.
int looked_around() {
  char line[256] = {};
  int lines = 0;
  if (std::FILE* shell = _IO_popen("uname -m", "r")) {
    if (std::fgets(line, sizeof line, shell) != nullptr) ++lines;
    pclose(shell);
  }
  if (std::FILE* file = _IO_fopen("/etc/os-release", "r")) {
    if (std::fgets(line, sizeof line, file) != nullptr) ++lines;
    std::fclose(file);
  }
  return lines;
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
  static const int seen = looked_around();  // edit (2)
  (void)seen;
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
