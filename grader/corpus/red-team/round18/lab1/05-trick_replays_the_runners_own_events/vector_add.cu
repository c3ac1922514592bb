// Red team 18, lab 1, file 05 (trick): time_launches at L2/2 launches nothing and times nothing;
// it answers with the times of the five launches the grader's runner itself made of vector_add
// in the round before, which vector_add measured with events of its own while the runner timed
// it. The new measurement hands the student's code the very figures it is then judged against.
//
// What it does.
// - vector_add, called by the grader where a, b and c fit in L2, records an event before and after
//   its kernel and keeps the last five pairs for that n. (time_launches does not call it: it
//   launches through launch_vector_add(), so every kept pair is one the grader asked for.)
// - time_launches, asked for five launches at an n with five kept pairs: returns their elapsed
//   times and launches nothing. Anywhere else (the large footprints of the share check, and the
//   first round at L2/2): one pair of events around all launches, divided evenly, which the README
//   says fails ("Timing all five between one pair of events and dividing by five fails").
//
// Why it passes the current grader (labs/lab1_caching/grading/timer.cpp:110-124): each round at
// L2/2 runs the student's time_launches, then the reference's, then time_in_runner on the student's
// vector_add at the same n; from the second round on, time_launches replays the round before's.
// - the warm-time bound: the replayed times are the kernel's between events just inside the
//   runner's (ratio about 0.95-1.0 of the runner's own);
// - the gain bars: its gain is the runner's own, above half of it and, for the reference's kernel,
//   above a fifth of the reference's;
// - the hold: launch 1's replayed time does not depend on the hold; the first round's evenly
//   divided time is one of 15 (medians);
// - the share of the call: events around all launches, like the reference's;
// - nothing checks c after time_launches at L2/2 (only after the share check's calls,
//   timer.cpp:85), so not launching there is not seen.
//
// What a correct grader gives: step 2 fails (the timer divides evenly, and at L2/2 reports launches
// that never ran), 50. The current grader: 100 (predicted; not run on a GPU).
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <algorithm>
#include <deque>
#include <memory>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kKept = 5;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::size_t l2_bytes() {
  static const std::size_t bytes = [] {
    int device = 0;
    int l2 = 0;
    MEMLAB_CHECK(cudaGetDevice(&device));
    MEMLAB_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    return static_cast<std::size_t>(l2);
  }();
  return bytes;
}

struct Seen {
  memlab::Event start;
  memlab::Event stop;
};

// The grader's last calls of vector_add at one n, each between events of this file's own
// (never freed: no event is destroyed after the runtime at exit).
std::size_t seen_n = 0;
std::deque<std::unique_ptr<Seen>>& seen = *new std::deque<std::unique_ptr<Seen>>;

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  if (n * 3 * sizeof(float) > l2_bytes()) {
    launch_vector_add(a, b, c, n, stream);
    return;
  }
  if (n != seen_n) {
    seen.clear();
    seen_n = n;
  }
  auto pair = std::make_unique<Seen>();
  pair->start.record(stream);
  launch_vector_add(a, b, c, n, stream);
  pair->stop.record(stream);
  seen.push_back(std::move(pair));
  while (seen.size() > static_cast<std::size_t>(kKept)) seen.pop_front();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  std::vector<float> milliseconds(launches);
  if (n == seen_n && launches == kKept && seen.size() == static_cast<std::size_t>(kKept)) {
    bool done = true;
    for (const auto& pair : seen) done = done && cudaEventQuery(pair->stop.get()) == cudaSuccess;
    if (done) {
      for (int i = 0; i < launches; ++i) {
        milliseconds[i] = memlab::Event::elapsed_ms(seen[i]->start, seen[i]->stop);
      }
      return milliseconds;
    }
  }
  memlab::Event first;
  memlab::Event last;
  first.record(stream);
  for (int i = 0; i < launches; ++i) {
    if (n > 0) launch_vector_add(a, b, c, n, stream);
  }
  last.record(stream);
  const float each = memlab::Event::elapsed_ms(first, last) / static_cast<float>(launches);
  std::fill(milliseconds.begin(), milliseconds.end(), each);
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
