// Red team 18, lab 1, file 06 (fair): the reference, with the kernel's loads and stores marked
// "streaming" (__ldcs / __stcs: PTX ld.global.cs / st.global.cs, evict-first in L1 and L2), as
// the CUDA programming guide suggests for data used once. The timer is the reference's, word for
// word, and correct.
//
// Why the current grader may fail it. Evict-first lines are the first to go when a set needs
// room. After the grader's flush every set of L2 is full of the flush buffer's (normal) lines,
// so each new line of a, b or c pushes out an earlier evict-first line rather than a flush line:
// after launch 1 little of a, b and c is left in L2, and launches 2-5 read from DRAM again.
// Expected at L2/2 on an H100: cold about 10.8 us, warm well above 6.8 us, a gain of perhaps
// 1.0x-1.1x (not measured: no GPU here). Step 2 then needs a fifth of the reference's gain,
// 1 + 0.2 x 0.6 = 1.12x, and fails ("Time each launch with its own pair of events, and do not
// wait between launches": it does both). The runner's own events around the same kernel show the
// same times (warm-time ratio about 1.0) and the same small gain, so the grader has the proof
// that the timer is right, but by design (timer.cpp: the student's runner's times "may only raise
// a bar") it cannot lower the reference's bar with it. The old grader failed it the same way.
// Step 1 (8x L2, DRAM-bound) is not slower with the hints.
//
// If the hints leave a, b and c in L2 after all (evict-first lines kept while nothing else wants
// the room), the gain is the reference's and it passes: 100.
//
// What a correct grader gives: 100 (the timer agrees with the grader's events around the same
// kernel; a kernel that does not use L2 is not a wrong timer). At least, a failure that names
// the kernel's small gain, not the timer. Predicted on the current grader: 50 (step 2 fails,
// 3 and 4 blocked), if the hints work as described.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;

// Memory pattern: as the reference's (consecutive threads, consecutive floats), each element
// read and written once, marked as streaming: no line is worth keeping in a cache.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    __stcs(c + i, __ldcs(a + i) + __ldcs(b + i));
  }
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
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
  std::vector<std::size_t> footprints;
  for (double multiple : {0.125, 0.25, 0.375, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    footprints.push_back(static_cast<std::size_t>(multiple * static_cast<double>(l2_bytes)));
  }
  return footprints;
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  return footprint_bytes <= l2_bytes;
}

}  // namespace lab1
