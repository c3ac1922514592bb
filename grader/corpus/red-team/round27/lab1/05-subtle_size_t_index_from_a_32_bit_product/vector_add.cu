// Red team 27, lab 1, file 05 (subtle bug): one element per thread, with the
// index declared std::size_t as the guide says, but computed as
//     const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;
// blockIdx.x * blockDim.x is an unsigned int product: it wraps at 2^32 before it
// is widened. For n past 2^32 elements, the threads of blocks past 2^32 / 256
// compute i modulo 2^32, rewrite c[0..] with the right values, and c[2^32..n)
// is never written. lab1.cuh: "arrays larger than 2^31 elements must work".
//
// What a student did and why: they read "use std::size_t for indices" and
// changed the declaration's type, which looks right and compiles without a warning.
//
// Expected now: 100, sure. The grader's largest n is 2^31 + 4099
// (by_gpu.hpp:47, arrays.cpp:116-134): the largest product there is
// 8388624 * 256 = 2^31 + 3840, under 2^32, so nothing wraps. arrays.cpp:111-115
// says why it stops there (a one-block kernel would run past the call limit at
// 51 GB); the timer and steps 3-4 are the reference's way.
// Correct: step1.correct fails (0 of 30): 70. The same class as round 7's
// unsigned index (round7/lab1/06), here in the spelling the guide's advice
// invites. Closing it needs n > 2^32 (3 x 17.2 GB on an 80 GB GPU); the call
// limit only bites for kernels of a few blocks, which step 1's speed check
// fails anyway, so a larger n in the correctness check would cost a fair
// kernel about 20 ms (51.5 GB at ~2.8 TB/s).

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/resources.cuh>

#include <vector>

namespace lab1 {

__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;  // a 64-bit index, as the guide says
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  constexpr unsigned kThreads = 256;
  const std::size_t blocks = (n + kThreads - 1) / kThreads;
  vector_add_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    vector_add(a, b, c, n, stream);
    stop[i].record(stream);
  }
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) milliseconds[i] = memlab::Event::elapsed_ms(start[i], stop[i]);
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  return {l2_bytes / 6, l2_bytes / 3, l2_bytes / 2, 5 * l2_bytes / 2, 5 * l2_bytes};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  return footprint_bytes <= l2_bytes / 2;
}

}  // namespace lab1
