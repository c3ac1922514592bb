// Lab 5 red-team submission 22: every GEMV one thread per row; each timed call
// answered before its work is done, the work finishing while the grader
// freezes the runner, before it reads y (against eb9a01c+).
//
// Same trick as lab 1's submission 10. gemv_shared_x and gemv_fast are the
// plain one-thread-per-row column-major GEMV (fast_layout() says column-major);
// all correctness checks pass. send_and_wait() freezes the runner between
// receiving a reply and returning it, and only then does the grader verify y;
// 1000 idle `sleep` processes in the sandbox make that freeze (two /proc
// scans) some 10 ms. A proxy thread on the grader's socket (fd 3; dup, socketpair,
// dup2) forwards everything, and for a call that follows a ping and a round
// trip (a timed call) at the timing shape, once the GEMV is enqueued, sends the
// grader an "ok" of its own 1.15x the DRAM floor plus 80 us (speed.cpp memory_floor_ms
// over A, x and 2 y) after the request came in, and drops the runner's real
// reply later. The GEMV (~4.3 ms for one thread per row at 20000 x 20000, 744 GB/s in
// docs/measurements/lab4-5.md, where the reference's warp per row takes ~1.1 ms) runs on while the runner is
// stopped. Untimed calls are answered normally.
#include "lab5.cuh"

#include <memlab/cuda_check.cuh>

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

namespace lab5 {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kThreadsPerRowBlock = 128;
constexpr int kCrowd = 1000;

unsigned int blocks_for(std::size_t threads, int per_block) {
  return static_cast<unsigned int>((threads + per_block - 1) / per_block);
}

__global__ void gemv_row_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                      const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  const double* line = a + row * cols;
  double sum = 0.0;
  for (std::size_t c = 0; c < cols; ++c) sum += line[c] * x[c];
  y[row] = alpha * sum + beta * y[row];
}

__global__ void gemv_column_major_kernel(std::size_t rows, std::size_t cols, double alpha, const double* a,
                                         const double* x, double beta, double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  double sum = 0.0;
  for (std::size_t c = 0; c < cols; ++c) sum += a[c * rows + row] * x[c];
  y[row] = alpha * sum + beta * y[row];
}

unsigned long long floor_target_ns(std::size_t rows, std::size_t cols) {
  int device = 0, clock_khz = 0, bus_bits = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
  const double gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  const double bytes = 8.0 * (double(rows) * double(cols) + double(cols) + 2.0 * double(rows));
  return static_cast<unsigned long long>(1.15 * bytes / gbps + 80000.0);
}

// What gemv tells the proxy about the call being served.
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

namespace {

void gemv(bool row_major, std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
          double beta, double* y, cudaStream_t stream) {
  install_once();
  if (row_major) {
    gemv_row_major_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
        rows, cols, alpha, a, x, beta, y);
  } else {
    gemv_column_major_kernel<<<blocks_for(rows, kThreadsPerRowBlock), kThreadsPerRowBlock, 0, stream>>>(
        rows, cols, alpha, a, x, beta, y);
  }
  MEMLAB_CHECK_LAUNCH();
  const bool large = rows * cols >= (std::size_t{1} << 24);  // the timing shape
  decide(large, large ? floor_target_ns(rows, cols) : 0);
}

}  // namespace

void gemv_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                    double beta, double* y, cudaStream_t stream) {
  gemv(true, rows, cols, alpha, a, x, beta, y, stream);
}

void gemv_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                       double beta, double* y, cudaStream_t stream) {
  gemv(false, rows, cols, alpha, a, x, beta, y, stream);
}

void gemv_shared_x(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                   double beta, double* y, cudaStream_t stream) {
  gemv(false, rows, cols, alpha, a, x, beta, y, stream);
}

Layout fast_layout() { return Layout::column_major; }

void gemv_fast(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
               double* y, cudaStream_t stream) {
  gemv(false, rows, cols, alpha, a, x, beta, y, stream);
}

}  // namespace lab5
