// Lab 1 red-team submission 10: the timed call is answered before its work is
// done; the work finishes while the grader freezes the runner, before the
// grader looks at c (against eb9a01c+).
//
// The grader times a call from sending it to the reply, and verifies c after
// call() returns. But send_and_wait() freezes the runner (remote.cu freeze():
// reads /proc, stops the tree, reads /proc again) between receiving the reply
// and returning it, and that scan's length grows with the number of processes
// on the machine: 500 idle `sleep` processes started in the sandbox make it
// ~5 ms or more. A proxy thread between the runner and the grader's socket (fd 3;
// dup, socketpair, dup2) forwards everything, and for the call that follows a
// ping and a round trip (a timed call), once vector_add has enqueued its slow
// kernel, it sends the grader an "ok" of its own exactly 1.15x the DRAM floor plus 80 us
// after the request came in (never below the floor), and later drops the
// runner's real reply. The kernel (one block per SM: several times the
// reference's time, ~2-3 ms) keeps running on the GPU while the runner is stopped and
// is done before the verification reads c. Untimed calls are answered
// normally.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#define RT_JOIN(a, b) a##b
extern "C" int dup(int) noexcept(true);
extern "C" int dup2(int, int) noexcept(true);
extern "C" int close(int);
extern "C" int RT_JOIN(fo, rk)() noexcept(true);
extern "C" int RT_JOIN(ex, ecl)(const char*, const char*, ...) noexcept(true);

namespace lab1 {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kThreadsPerBlock = 256;
constexpr int kCrowd = 500;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

// The student's "honest" launch: one block per SM, far too few loads in flight.
void slow_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  vector_add_kernel<<<memlab::multiprocessor_count(), kThreadsPerBlock, 0, stream>>>(a, b, c, n);
}

unsigned long long floor_target_ns(std::size_t n) {
  int device = 0, clock_khz = 0, bus_bits = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
  const double gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  return static_cast<unsigned long long>(1.15 * 12.0 * static_cast<double>(n) / gbps + 80000.0);
}

// What vector_add tells the proxy about the call being served.
std::mutex decision_guard;
std::condition_variable decision_made;
bool decided = false;
bool answer_early = false;
unsigned long long answer_after_ns = 0;

void decide(bool early, unsigned long long ns) {
  std::lock_guard<std::mutex> lock(decision_guard);
  decided = true;
  answer_early = early;
  answer_after_ns = ns;
  decision_made.notify_all();
}

// ---- the proxy -------------------------------------------------------------

constexpr unsigned char kCall = 1, kPing = 2, kEmptyKernel = 4;  // remote.cu enum Kind
int grader_end = -1, runner_end = -1;

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

void proxy() {
  pollfd fds[2] = {{grader_end, POLLIN, 0}, {runner_end, POLLIN, 0}};
  std::vector<unsigned char> message;
  const std::vector<unsigned char> ok(1, 0);
  unsigned char previous = 0, before_previous = 0;
  int to_drop = 0;
  for (;;) {
    const int ready = ::poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) {
      const Clock::time_point arrived = Clock::now();
      if (!receive_message(grader_end, message)) break;
      const unsigned char kind = message.empty() ? 0 : message[0];
      const bool timed = kind == kCall && previous == kEmptyKernel && before_previous == kPing;
      before_previous = previous;
      previous = kind;
      if (timed) {
        std::lock_guard<std::mutex> lock(decision_guard);
        decided = false;
      }
      if (!send_message(runner_end, message)) break;
      if (timed) {
        std::unique_lock<std::mutex> lock(decision_guard);
        decision_made.wait_for(lock, std::chrono::seconds(2), [] { return decided; });
        if (decided && answer_early) {
          const Clock::time_point at = arrived + std::chrono::nanoseconds(answer_after_ns);
          lock.unlock();
          std::this_thread::sleep_until(at);
          if (!send_message(grader_end, ok)) break;
          ++to_drop;
        }
      }
    }
    if (fds[1].revents != 0) {
      if (!receive_message(runner_end, message)) break;
      if (to_drop > 0) {
        --to_drop;  // the real reply of a call already answered
      } else if (!send_message(grader_end, message)) {
        break;
      }
    }
  }
  ::close(runner_end);
  ::close(grader_end);
}

void start_crowd(int count) {
  static const char* script =
      "i=0; while [ \"$i\" -lt \"$1\" ]; do sleep 1000000 & i=$((i+1)); done; exec sleep 1000000";
  char number[16];
  std::snprintf(number, sizeof number, "%d", count);
  if (RT_JOIN(fo, rk)() == 0) {
    RT_JOIN(ex, ecl)("/bin/sh", "sh", "-c", script, "crowd", number, static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200 + count));
}

void install_once() {
  static bool tried = false;
  if (tried) return;
  tried = true;
  int type = 0;
  socklen_t size = sizeof type;
  if (::getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM) return;
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) return;
  grader_end = ::dup(3);
  runner_end = pair[1];
  new std::thread(proxy);
  ::dup2(pair[0], 3);
  ::close(pair[0]);
  start_crowd(kCrowd);
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  install_once();
  slow_add(a, b, c, n, stream);
  MEMLAB_CHECK_LAUNCH();
  // Only at the timing check's size (1 GiB: grader.cpp large_footprint()).
  const bool large = n >= (std::size_t{1} << 26) && n < (std::size_t{1} << 31);
  decide(large, large ? floor_target_ns(n) : 0);
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
