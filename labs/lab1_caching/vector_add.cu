// Lab 1: caching, observed with vector_add.
//
// Everything you write for this lab goes in this file. README.md beside it
// explains each step; lab1.cuh documents the functions below.
//
//   make lab1            build this file and check every step
//   make lab1 STEP=2     check steps 1 and 2 only
//   make lab1-profile    count DRAM bytes per launch with Nsight Compute

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>  // MEMLAB_CHECK(call), MEMLAB_CHECK_LAUNCH()
#include <memlab/launch.cuh>      // memlab::multiprocessor_count(): the number of SMs
#include <memlab/resources.cuh>   // memlab::Event: a CUDA event that frees itself

#include <vector>

namespace lab1 {

// Memory pattern: thread i reads a[i] and b[i] and writes c[i]. Threads of a
// warp take neighbouring i, so each warp reads 32 consecutive floats at once.
__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  // TODO(step 1): compute c[i] = a[i] + b[i] for every i < n. Find this
  // thread's i from blockIdx, blockDim and threadIdx, and never touch c[n] or beyond.
}

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  // TODO(step 1): launch vector_add_kernel on `stream` with enough threads for
  // all n elements (or a grid-stride loop in the kernel), then MEMLAB_CHECK_LAUNCH().
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  std::vector<float> milliseconds(launches, 0.0f);
  // TODO(step 2): launch vector_add `launches` times on `stream`, each between
  // its own pair of events (memlab::Event has record(stream) and elapsed_ms()),
  // and return the time of each launch.
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  // TODO(step 3): return footprints (bytes of a, b and c together): at least
  // two between l2_bytes / 8 and l2_bytes / 2, and at least two of 2 * l2_bytes or more.
  return {};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  // TODO(step 4): before you look at step 3's table, predict: at this footprint,
  // will launches 2 to 5 be clearly faster than launch 1? Write the rule here.
  return false;
}

}  // namespace lab1
