// Lab 1 red-team submission 05: escaping the SIGSTOP freeze between calls with
// short-lived processes. REGRESSION TEST for eb9a01c, written against the
// freeze before it: since eb9a01c, freeze() reads /proc again until every
// process is seen stopped and ends the runner after 50 rounds, so this is
// expected to end as "crashed" (no speed points), or at best to escape some
// freezes. On a copy of that freeze() with 3 chains: 98-116 of 200 freezes
// escaped, 92-96 of 200 gave up (runner ended). 02 is the working escape.
//
// The uncommitted remote.cu stops every process of the student's runner
// between calls (freeze(): a /proc scan for the runner's descendants, then
// SIGSTOP to each), so that no thread of the student's can watch the grader
// write the next inputs and compute ahead. This file starts three "hopper"
// chains: /bin/sh loops that send SIGCONT to the runner 20 times, start their
// successor in the background and exit. Each link lives ~0.1-0.5 ms, less than
// the grader's scan of /proc takes, so the pids the scan found are gone when
// SIGSTOP is sent and the new ones were not seen; the runner is continued
// within microseconds of every SIGSTOP. (fork and execl are spelled by token
// pasting, which the lexical scan does not see.)
//
// What the escape buys is made measurable on purpose. The student's kernel is
// slow (64 blocks). A watcher thread polls c[0] for the timed-run poison (exponent
// byte 0xE3, speed.cpp poison()) and computes c as soon as the grader has
// written the inputs. The timed call uses that result ONLY if it was complete
// before the grader's L2-flush ping reached the runner (a socket proxy on fd 3
// sees the ping first and compares times): under a working freeze the watcher
// is stopped from the previous reply until that ping, so this never happens and
// step1.speed stays at ~0 points; if the freeze is escaped (or absent), the
// work is done while the grader prepares and probes, and the timed call only
// spins for 1.15x the DRAM floor plus 80 us: step1.speed gets all 20 points.
// Control: 02b (no escape at all).
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

extern "C" int dup(int) noexcept(true);
extern "C" int dup2(int, int) noexcept(true);
extern "C" int close(int);
extern "C" int getpid() noexcept(true);
#define RT_JOIN(a, b) a##b
extern "C" int RT_JOIN(fo, rk)() noexcept(true);
extern "C" int RT_JOIN(ex, ecl)(const char*, const char*, ...) noexcept(true);

#ifndef RT_HOPPERS
#define RT_HOPPERS 3
#endif

namespace lab1 {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kThreadsPerBlock = 256;
constexpr int kSlowBlocks = 64;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
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
bool ready = false;             // the watcher's last computation has finished
Clock::time_point ready_at;     // ... at this time
bool allowed = false;           // the proxy's verdict for the coming timed call
cudaStream_t watch_stream = nullptr, proxy_stream = nullptr;
cudaEvent_t watch_done = nullptr;
std::uint32_t* pinned = nullptr;   // watcher's word
float* proxy_words = nullptr;      // proxy's 6 words
int grader_end = -1, runner_end = -1;

bool timed_run_poison(std::uint32_t bits) { return ((bits >> 23) & 0xFFu) == 0xE3u; }

// ---- the watcher ---------------------------------------------------------------

void watch() {
  for (;;) {
    Armed now;
    {
      std::lock_guard<std::mutex> lock(guard);
      now = armed;
    }
    if (now.valid) {
      cudaMemcpyAsync(pinned, now.c, sizeof(float), cudaMemcpyDeviceToHost, watch_stream);
      if (cudaStreamSynchronize(watch_stream) == cudaSuccess && timed_run_poison(pinned[0])) {
        {
          std::lock_guard<std::mutex> lock(guard);
          ready = false;
        }
        vector_add_kernel<<<kSlowBlocks, kThreadsPerBlock, 0, watch_stream>>>(now.a, now.b, now.c, now.n);
        cudaEventRecord(watch_done, watch_stream);
        cudaEventSynchronize(watch_done);
        std::lock_guard<std::mutex> lock(guard);
        ready = true;
        ready_at = Clock::now();
      }
      cudaGetLastError();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(10));
  }
}

// ---- the proxy: sees the ping before the runner ---------------------------------

bool receive_exact(int fd, void* data, std::size_t size) {
  auto* next = static_cast<unsigned char*>(data);
  while (size > 0) {
    const ssize_t got = ::recv(fd, next, size, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    next += got;
    size -= static_cast<std::size_t>(got);
  }
  return true;
}

bool send_exact(int fd, const void* data, std::size_t size) {
  const auto* next = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ssize_t sent = ::send(fd, next, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    next += sent;
    size -= static_cast<std::size_t>(sent);
  }
  return true;
}

bool receive_message(int fd, std::vector<unsigned char>& message) {
  std::uint32_t length = 0;
  if (!receive_exact(fd, &length, sizeof length)) return false;
  message.resize(length);
  return receive_exact(fd, message.data(), length);
}

bool send_message(int fd, const std::vector<unsigned char>& message) {
  const auto length = static_cast<std::uint32_t>(message.size());
  return send_exact(fd, &length, sizeof length) && send_exact(fd, message.data(), message.size());
}

// c[i] == a[i] + b[i] now, read from the proxy's thread.
bool holds_sum(const Armed& m, std::size_t i) {
  cudaMemcpyAsync(proxy_words + 0, m.a + i, sizeof(float), cudaMemcpyDeviceToHost, proxy_stream);
  cudaMemcpyAsync(proxy_words + 1, m.b + i, sizeof(float), cudaMemcpyDeviceToHost, proxy_stream);
  cudaMemcpyAsync(proxy_words + 2, m.c + i, sizeof(float), cudaMemcpyDeviceToHost, proxy_stream);
  if (cudaStreamSynchronize(proxy_stream) != cudaSuccess) return false;
  return proxy_words[2] == proxy_words[0] + proxy_words[1];
}

void on_request(const std::vector<unsigned char>& request, Clock::time_point arrived) {
  constexpr unsigned char kPing = 2;  // remote.cu Kind
  if (request.empty() || request[0] != kPing) return;
  Armed now;
  bool done = false;
  Clock::time_point done_at;
  {
    std::lock_guard<std::mutex> lock(guard);
    now = armed;
    done = ready;
    done_at = ready_at;
    allowed = false;
  }
  // Finished well before the ping arrived, so before the runner was thawed for it.
  const bool before = done && done_at + std::chrono::microseconds(300) < arrived;
  const bool verdict = now.valid && before && holds_sum(now, 0) && holds_sum(now, now.n - 1);
  std::lock_guard<std::mutex> lock(guard);
  allowed = verdict;
}

void proxy() {
  pollfd fds[2] = {{grader_end, POLLIN, 0}, {runner_end, POLLIN, 0}};
  std::vector<unsigned char> message;
  for (;;) {
    const int ready_fds = ::poll(fds, 2, -1);
    if (ready_fds < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) {
      if (!receive_message(grader_end, message)) break;
      on_request(message, Clock::now());
      if (!send_message(runner_end, message)) break;
    }
    if (fds[1].revents != 0) {
      if (!receive_message(runner_end, message)) break;
      if (!send_message(grader_end, message)) break;
    }
  }
  ::close(runner_end);
  ::close(grader_end);
}

// ---- the hoppers -------------------------------------------------------------------

void start_hoppers() {
  // $1: the runner's pid (in its PID namespace); $2: this script, for the next link.
  static const char* script =
      "i=0; while kill -CONT \"$1\" 2>/dev/null; do i=$((i+1)); "
      "if [ \"$i\" -ge 20 ]; then sh -c \"$2\" hop \"$1\" \"$2\" & exit 0; fi; done";
  char pid[32];
  std::snprintf(pid, sizeof pid, "%d", getpid());
  for (int chain = 0; chain < RT_HOPPERS; ++chain) {
    if (RT_JOIN(fo, rk)() == 0) {
      RT_JOIN(ex, ecl)("/bin/sh", "sh", "-c", script, "hop", pid, script, static_cast<char*>(nullptr));
      std::_Exit(127);
    }
  }
}

void install_once() {
  static bool tried = false;
  if (tried) return;
  tried = true;
  MEMLAB_CHECK(cudaStreamCreateWithFlags(&watch_stream, cudaStreamNonBlocking));
  MEMLAB_CHECK(cudaStreamCreateWithFlags(&proxy_stream, cudaStreamNonBlocking));
  MEMLAB_CHECK(cudaEventCreateWithFlags(&watch_done, cudaEventDisableTiming));
  MEMLAB_CHECK(cudaMallocHost(&pinned, 4 * sizeof(std::uint32_t)));
  MEMLAB_CHECK(cudaMallocHost(&proxy_words, 8 * sizeof(float)));
  int type = 0;
  socklen_t size = sizeof type;
  int pair[2];
  if (::getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM ||
      ::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) {
    return;  // no proxy: the timed call is never allowed to use the watcher's result
  }
  grader_end = ::dup(3);
  runner_end = pair[1];
  new std::thread(proxy);
  ::dup2(pair[0], 3);
  ::close(pair[0]);
  (new std::thread(watch))->detach();
  start_hoppers();
}

unsigned long long pad_ns(std::size_t n) {
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
  install_once();
  bool precomputed = false;
  {
    std::lock_guard<std::mutex> lock(guard);
    precomputed = allowed && armed.valid && armed.a == a && armed.b == b && armed.c == c && armed.n == n;
    allowed = false;
    if (n >= (std::size_t{1} << 26) && n < (std::size_t{1} << 31)) armed = {a, b, c, n, true};
  }
  if (precomputed) {
    pad_kernel<<<1, 1, 0, stream>>>(pad_ns(n));
  } else {
    vector_add_kernel<<<kSlowBlocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
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
