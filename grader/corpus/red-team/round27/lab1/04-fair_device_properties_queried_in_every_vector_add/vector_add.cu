// Red team 27, lab 1, file 04 (fair habit, heavy cost): a correct grid-stride
// vector_add that asks cudaGetDeviceProperties for the SM count in every call
// (the most common way tutorials size a grid), and the reference's timer.
//
// What a student did and why: they did not notice memlab::multiprocessor_count()
// in the skeleton's includes and wrote the launch the way their textbook does.
// The kernel, the launch on the given stream, the grid and the timer are all right.
//
// Expected now: depends on what one cudaGetDeviceProperties costs on the grading
// host, a cost no student controls or sees in the guide:
//  - cudaGetDeviceProperties fills every field of cudaDeviceProp, some of which
//    the driver must ask the device for; reported at about 1 ms a call (cuDF issue
//    #23074, 2026: "Each call takes about 1ms"; CUTLASS PR #927: "~1 to 10s of
//    milliseconds"). Not measured here (no GPU).
//  - step1.speed: the grader's clock times the whole call (README step 1), 0.37 ms
//    of kernel at 1 GiB on an H100 plus the query: at 1 ms, 3.7x the reference:
//    0 of 20 points (points.py earned(); lab1.txt 1.25/3.00).
//  - step2.timer: five calls of vector_add are queued behind a 1 ms hold of the
//    stream (timer.cpp:271-276, arrays.hpp:30); at 1 ms each the first kernel runs
//    before the fifth is queued in every round: "your vector_add did not return
//    before the GPU ran it" (timer.cpp:349-357). Step 2 fails: 0 of 20.
//  - steps 3-4 (30 points) are then BLOCKED (grader.cpp:121), although step 3
//    measures the reference's kernel and step 4 reads only a prediction: neither
//    depends on this student's timer or vector_add.
//  Predicted total: 30 if the query costs about 1 ms. With a query under about
//  0.2 ms (5 calls inside the hold) step 2 passes and the total is 97-100.
//  Confidence: low on the figure, high on the mechanism.
//
// Correct verdict: step 1's speed loss is real (the call is slower), and the
// guide does say a slow-on-the-host vector_add fails step 2 (README step 2,
// fifth bullet). But the 30 points of steps 3 and 4 are lost for a reason they
// do not measure. Suggested: 50 to 70 (steps 3-4 not blocked by step 2), and a
// sentence in step 1 naming device queries per call.

#include "lab1.cuh"

#include <memlab/cuda_check.cuh>

#include <vector>

namespace lab1 {

// Grid-stride loop: thread t handles t, t + grid, t + 2 grid, ...
__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    c[i] = a[i] + b[i];
  }
}

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  int device = 0;
  MEMLAB_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  MEMLAB_CHECK(cudaGetDeviceProperties(&properties, device));
  const int threads = 256;
  // Enough blocks to fill every SM (2048 threads each), never more than n needs.
  const std::size_t per_sm = static_cast<std::size_t>(properties.maxThreadsPerMultiProcessor) / threads;
  const std::size_t most = per_sm * static_cast<std::size_t>(properties.multiProcessorCount);
  const std::size_t needed = (n + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(needed < most ? needed : most);
  vector_add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  std::vector<cudaEvent_t> start(launches), stop(launches);
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventCreate(&start[i]));
    MEMLAB_CHECK(cudaEventCreate(&stop[i]));
  }
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventRecord(start[i], stream));
    vector_add(a, b, c, n, stream);
    MEMLAB_CHECK(cudaEventRecord(stop[i], stream));
  }
  MEMLAB_CHECK(cudaEventSynchronize(stop[launches - 1]));
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) {
    MEMLAB_CHECK(cudaEventElapsedTime(&milliseconds[i], start[i], stop[i]));
    MEMLAB_CHECK(cudaEventDestroy(start[i]));
    MEMLAB_CHECK(cudaEventDestroy(stop[i]));
  }
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  return {l2_bytes / 8, l2_bytes / 4, l2_bytes / 2, 2 * l2_bytes, 4 * l2_bytes, 8 * l2_bytes};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  return footprint_bytes <= l2_bytes / 2;
}

}  // namespace lab1
