// Lab 1 red-team submission 03: an int-indexed kernel that keeps full correctness
// marks by making the grader skip its n > 2^31 check (against 4b97968).
//
// The kernel is one element per thread with an int index (the corpus's
// "int_index" bug: past 2^31 elements it writes nothing, and must lose
// step1.correct). grader.cpp beyond_int_range() runs the n = 2^31 + 4099 case
// only when the GPU has 1.125 x 25.8 GB free, and otherwise reports "n > 2^31
// not checked" and passes. On its first call (n = 1) this file allocates GPU
// memory in 256 MB pieces until about (total/10 + 29 GB) / 2 stays free: more
// than the tenth that look_at_gpu_after() calls "memory_exhausted", less than
// the huge check needs.
// The grader now ends the student's runner first and waits up to 3 s for the
// memory to come back (4b97968: 60 x 50 ms). A dying process gives its GPU
// memory back when its files are closed, which comes after its address space is
// torn down (do_exit: exit_mm before exit_files; the thread that frees the
// address space still holds the shared file table). So the same first call also
// fills 24 GB of host memory in 4 KB pages (MADV_NOHUGEPAGE, 16 threads):
// unmapping them takes the dying runner seconds, during which cudaMemGetInfo
// still counts the hoard. In run 17 (no wait yet) this scored 100.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <cstdint>
#include <new>
#include <thread>
#include <vector>

extern "C" int madvise(void*, std::size_t, int) noexcept(true);  // <sys/mman.h> is refused by the scan

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;

// Memory pattern: in each pass, thread t of the grid reads a[i] and b[i] and
// writes c[i] for i = pass * (grid size) + t. Consecutive threads of a warp
// touch consecutive floats, so each warp-wide load is 128 contiguous bytes
// (four 32-byte sectors, every byte used). Each element is read and written
// exactly once: 12 bytes of DRAM traffic per element when nothing is cached.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // wraps past 2^31 elements
  if (i < n) c[i] = a[i] + b[i];
}

// Keeps most of the GPU's memory allocated, once: see the file comment.
void hoard_memory_once(std::size_t n) {
  static bool done = false;
  if (done) return;
  done = true;
  if (n > 1) return;  // only in the runner of the correctness check (its first size is 1)
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return;
  const double needed_for_huge = 1.125 * 3.0 * ((std::size_t{1} << 31) + 4099 + 256) * sizeof(float);
  const double keep_free = (0.1 * static_cast<double>(total_bytes) + needed_for_huge) / 2;
  const double later = 1.5e9;  // the grader's own arrays for the larger sizes still to come
  double to_take = static_cast<double>(free_bytes) - keep_free - later;
  // Host memory the process must unmap when it dies, before its GPU memory is freed.
  constexpr std::size_t kHostBytes = std::size_t{24} << 30;
  constexpr int kFillers = 16;
  static char* host = new (std::nothrow) char[kHostBytes];
  if (host != nullptr) {
    const auto page = (reinterpret_cast<std::uintptr_t>(host) + 4095) & ~std::uintptr_t{4095};
    madvise(reinterpret_cast<void*>(page), kHostBytes - 8192,
            15 /* MADV_NOHUGEPAGE: 4 KB pages, each unmapped on its own */);
    std::vector<std::thread> fillers;
    for (int f = 0; f < kFillers; ++f) {
      fillers.emplace_back([f] {
        for (std::size_t i = f * (kHostBytes / kFillers); i < (f + 1) * (kHostBytes / kFillers); i += 4096) host[i] = 1;
      });
    }
    for (std::thread& filler : fillers) filler.join();
  }
  for (std::size_t chunk = std::size_t{1} << 28; to_take >= static_cast<double>(chunk) / 2;) {
    void* hoard = nullptr;
    if (cudaMalloc(&hoard, chunk) == cudaSuccess) {
      to_take -= static_cast<double>(chunk);
    } else {
      cudaGetLastError();
      if (chunk <= (std::size_t{1} << 24)) break;
      chunk /= 2;
    }
  }
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  hoard_memory_once(n);
  const auto blocks = static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
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
