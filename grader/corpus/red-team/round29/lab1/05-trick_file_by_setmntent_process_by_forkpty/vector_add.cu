// Red team 29, lab 1, file 05 (trick, forbidden API the scan lets through): the reference, plus a
// choose_footprints that reads a file and starts a process through C library calls that appear on
// none of the scan's lists: setmntent, which opens any path with fopen inside the C library and
// returns the FILE*, and forkpty, which forks (and makes the child a session leader). The child
// exits at once; the parent reaps it. glibc 2.36 exports both with default versions (nm -D:
// `setmntent@@GLIBC_2.2.5`, `forkpty@@GLIBC_2.34`); the headers <mntent.h>, <pty.h> and
// <sys/wait.h> are not forbidden.
//
// Edits to solutions/lab1_caching/vector_add.cu: (1) <cstdio>, <cstdlib>, <mntent.h>, <pty.h>,
// <sys/wait.h>, and a declaration of close (unistd.h is a forbidden header, scan.py:56-58, so the
// declaration is the file's own); (2) choose_footprints, on its first call, reads one line of
// /etc/os-release through setmntent and fgets, and forks a child through forkpty that exits at
// once; it returns the reference's footprints whatever happened.
//
// Targets grader/memlab_grader/scan.py at HEAD 74f40af: since f4654a0 every POSIX call is judged
// only by name, against _FILE_NAMES anywhere (:33-43) and _IMPORTED_FILE_NAMES among the imports
// (:49-51, read through _C_LIBRARY_SPELLING, :55). Both are lists of names, and the C library has
// other doors to the same things: setmntent/__setmntent and catopen open a path; utmpname +
// getutent read one; mkstemp creates and opens one; rename, remove, truncate change files (unlink
// is listed, remove is not); readv, writev, preadv, pwritev, sendfile, splice and copy_file_range
// move bytes through any descriptor (pread and pwrite are listed, their vector twins are not);
// forkpty and daemon fork (fork, vfork, _Fork and clone are listed); pidfd_getfd takes another
// process's descriptor. None is named anywhere. Checked without a GPU: grade.py marks this file
// "compiled; not run: no GPU".
//
// The fork happens in a process with a CUDA context; the child touches no CUDA call and leaves with
// _Exit, which is safe. Under the runner's sandbox both doors stay inside it (read-only file system,
// pid namespace); the point is the policy: "reading files or running programs" is 0, final, and
// this file passes the scan with both. forkpty's setsid also takes the child out of the runner's
// process group: with --no-sandbox and no cgroup, a child that did not exit would outlive the call
// (the grader's freezer finds descendants through /proc, freezer.hpp:40-44, so it would be held
// while its parent lives; a grandchild orphaned by its parent would not).
//
// Predicted now: graded 100 on a GPU (the file and the fork are harmless, once, untimed, in step 3).
// Correct: forbidden API, 0. Confidence: high on the scan (checked here); the GPU verdict rests on
// the reference's code. If forkpty finds no /dev/ptmx in the sandbox it returns -1, and nothing
// changes.

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

// Edit (1): a file through the mount table's reader, a child process through the pseudo-terminal
// helper; close() declared here.
#include <mntent.h>
#include <pty.h>
#include <sys/wait.h>
extern "C" int close(int descriptor);

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

// Edit (2): one line of a file read through setmntent, and a child process through forkpty.
int looked_around() {
  char line[256] = {};
  int done = 0;
  if (std::FILE* file = setmntent("/etc/os-release", "r")) {
    if (std::fgets(line, sizeof line, file) != nullptr) ++done;
    endmntent(file);
  }
  int terminal = -1;
  const int child = forkpty(&terminal, nullptr, nullptr, nullptr);
  if (child == 0) std::_Exit(0);  // the child: nothing else
  if (child > 0) {
    int status = 0;
    waitpid(child, &status, 0);
    close(terminal);
    ++done;
  }
  return done;
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
