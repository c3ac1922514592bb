// Lab 1 red-team submission 02b: CONTROL for 02, the same file with RT_SIGCONT_TIMER 0
// (no timer). With the freeze working it must get ~0 of step1.speed (the
// watcher only runs from the ping on). Comment of 02:
//
// Lab 1 red-team submission 02: the freeze between calls undone by a POSIX
// timer that sends SIGCONT to the runner itself (against eb9a01c+).
//
// remote.cu stops every process of the student's runner between calls
// (freeze(): SIGSTOP, then /proc read again until all are seen stopped), so
// that no thread of the student's can watch the grader write the next inputs.
// A stopped process cannot run, but the kernel still delivers its timers'
// signals, and generating SIGCONT continues a stopped process (prepare_signal).
// So on its first call this file installs an empty SIGCONT handler (SA_RESTART;
// without one, SIGCONT is an ignored signal and, measured, the timer did not
// continue the stopped process) and arms
// timer_create(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGCONT) every 2 ms (measured on a
// copy of freeze(): 200 of 200 freezes undone within 5 ms, never more than a
// few /proc rounds, so never "ended"): freeze() sees the runner stopped and
// returns, and within 2 ms the runner is running again, for as long as the
// grader believes it frozen. No process is forked, nothing is hidden from the
// lexical scan, no socket is touched.
//
// What that buys, measured on purpose: the student's kernel is slow (a block
// for every second SM: ~5 ms, over ten times the reference's time). A watcher thread
// polls c[0] and c[n-1] for the timed-run poison (exponent byte 0xE3,
// speed.cpp poison()) and computes c as soon as the grader has written the
// run's inputs; the grader's idle probe then sees the GPU busy and waits
// 20 ms for it (remote.cu require_idle_gpu_for), so the work is done long
// before the ping (nothing "extra" for f3d9806 to charge). The timed call uses that result only if it was complete at least
// 5 ms before the call (impossible if the runner stays frozen until the ping:
// 02b is this file without the timer) and c[0], c[n-1] hold a + b of the
// current inputs; it then spins until 1.15x the grader's DRAM floor plus 80 us has passed.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <csignal>
#include <ctime>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#define RT_SIGCONT_TIMER 0

namespace lab1 {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kThreadsPerBlock = 256;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

// The student's "honest" launch: a block for every second SM, far too few loads in flight.
void slow_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  const int blocks = memlab::multiprocessor_count() / 2 > 0 ? memlab::multiprocessor_count() / 2 : 1;
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void pad_kernel(unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) {
  }
}

struct Armed {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  std::size_t n = 0;
  bool valid = false;
};

std::mutex guard;
Armed armed;
bool done = false;        // the watcher computed c for the inputs it last saw poisoned
Clock::time_point done_at;
cudaStream_t watch_stream = nullptr;
cudaEvent_t watch_done = nullptr;
std::uint32_t* pinned = nullptr;

bool timed_run_poison(std::uint32_t bits) { return ((bits >> 23) & 0xFFu) == 0xE3u; }

void watch() {
  for (;;) {
    Armed now;
    {
      std::lock_guard<std::mutex> lock(guard);
      now = armed;
    }
    if (now.valid) {
      // Both ends: step 2 poisons only c[0..L2/2] of the same arrays before its first call.
      cudaMemcpyAsync(pinned, now.c, sizeof(float), cudaMemcpyDeviceToHost, watch_stream);
      cudaMemcpyAsync(pinned + 1, now.c + now.n - 1, sizeof(float), cudaMemcpyDeviceToHost, watch_stream);
      if (cudaStreamSynchronize(watch_stream) == cudaSuccess && timed_run_poison(pinned[0]) &&
          timed_run_poison(pinned[1])) {
        slow_add(now.a, now.b, now.c, now.n, watch_stream);
        cudaEventRecord(watch_done, watch_stream);
        cudaEventSynchronize(watch_done);
        std::lock_guard<std::mutex> lock(guard);
        done = true;
        done_at = Clock::now();
      }
      cudaGetLastError();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void on_sigcont(int) {}

void continue_myself_every(long nanoseconds) {
  // A handler, so that the signal is not "ignored" (SIGCONT's default): with
  // the default action the timer did not continue the stopped process.
  // SA_RESTART: the runner's blocking recv() is restarted, not interrupted.
  struct sigaction action{};
  action.sa_handler = on_sigcont;
  action.sa_flags = SA_RESTART;
  sigaction(SIGCONT, &action, nullptr);
  sigevent event{};
  event.sigev_notify = SIGEV_SIGNAL;
  event.sigev_signo = SIGCONT;
  timer_t timer{};
  if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) return;
  itimerspec period{};
  period.it_value.tv_nsec = nanoseconds;
  period.it_interval.tv_nsec = nanoseconds;
  timer_settime(timer, 0, &period, nullptr);
}

void setup_once() {
  static bool started = false;
  if (started) return;
  started = true;
  MEMLAB_CHECK(cudaStreamCreateWithFlags(&watch_stream, cudaStreamNonBlocking));
  MEMLAB_CHECK(cudaEventCreateWithFlags(&watch_done, cudaEventDisableTiming));
  MEMLAB_CHECK(cudaMallocHost(&pinned, 8 * sizeof(std::uint32_t)));
  (new std::thread(watch))->detach();
  if (RT_SIGCONT_TIMER) continue_myself_every(2000000);
}

bool holds_sum(const float* a, const float* b, const float* c, std::size_t i, cudaStream_t stream) {
  float* values = reinterpret_cast<float*>(pinned + 4);
  cudaMemcpyAsync(values + 0, a + i, sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaMemcpyAsync(values + 1, b + i, sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaMemcpyAsync(values + 2, c + i, sizeof(float), cudaMemcpyDeviceToHost, stream);
  if (cudaStreamSynchronize(stream) != cudaSuccess) return false;
  return values[2] == values[0] + values[1];
}

unsigned long long floor_target_ns(std::size_t n) {
  int device = 0, clock_khz = 0, bus_bits = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
  const double gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  return static_cast<unsigned long long>(1.15 * 12.0 * static_cast<double>(n) / gbps + 80000.0);
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  setup_once();
  const Clock::time_point called = Clock::now();
  bool precomputed = false;
  {
    std::lock_guard<std::mutex> lock(guard);
    const bool same = armed.valid && armed.a == a && armed.b == b && armed.c == c && armed.n == n;
    precomputed = done && same && done_at + std::chrono::milliseconds(5) < called &&
                  holds_sum(a, b, c, 0, stream) && holds_sum(a, b, c, n - 1, stream);
    done = false;
    // Watch only while the calls are at the timing size (step 1's speed check):
    // any other call (step 2's first) ends the watching, so no polling runs while
    // the reference is timed for steps 2 and 3.
    if (n >= (std::size_t{1} << 26) && n < (std::size_t{1} << 31)) {
      armed = {a, b, c, n, true};
    } else {
      armed.valid = false;
    }
  }
  if (precomputed) {
    pad_kernel<<<1, 1, 0, stream>>>(floor_target_ns(n));
  } else {
    slow_add(a, b, c, n, stream);
  }
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
