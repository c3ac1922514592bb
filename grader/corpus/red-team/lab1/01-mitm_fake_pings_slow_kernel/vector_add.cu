// Lab 1 red-team submission 01: a slow kernel timed as a fast one, by answering
// the grader's pre-call messages from a socket proxy (against f3d9806+).
//
// The student's only vector_add kernel is slow: one block of 256 threads per SM
// (several times the reference's time: 0 of step1.speed's 20 points if timed
// honestly).
// Before each timed call the grader writes the run's fresh a and b, poisons c,
// then sends the runner an L2-flush ping and an empty-kernel round trip. The
// proxy below answers both itself, at once, after enqueueing the slow kernel
// for the last large call's arrays on a stream of its own. The kernel runs
// while the grader freezes the runner after each of the two replies (a scan of
// /proc each, made longer by 300 idle processes in the sandbox). The timed call
// then stamps the GPU clock, waits for that kernel (usually long done) and spins
// until 1.15x the grader's DRAM floor (speed.cpp memory_floor_ms) plus 80 us
// has passed since the stamp: the grader takes a round trip (50-85 us) off the
// call, and a time below the floor would void the check (and block steps 2-4).
// Every run is verified correct.
// Side effect, also measured: the reference is charged ~0.3 ms per timed call
// (its real pings exceed this runner's fake ones by more than 50 us).
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

// ---- shared by the "fake ping" submissions (pasted into each file) ----------
//
// A proxy thread between the runner and the grader's socket (fd 3): dup(3)
// keeps the grader's end, a socketpair's end is dup2'ed onto fd 3, and the
// thread forwards the messages. It answers two kinds of request itself,
// without waking the runner's loop (remote.cu wire format: u32 length, payload;
// a request starts with its kind and the released buffer ids):
//  - the L2-flush ping before a timed call (kind 2, make_current_on_gpu):
//    it first enqueues the answer for the last large call's arguments on a
//    stream of its own (launch_ahead()), then replies "ok" (one byte 0)
//    at once;
//  - the empty-kernel round trip that follows it (kind 4): "ok" at once.
// Neither message then takes more than a socket hop, so nothing is "extra"
// (f3d9806 charges only what the ping and the round trip take beyond the
// smaller of the two runners' medians), while the work runs on the GPU during
// the grader's two freezes (the /proc scans of eb9a01c), which nobody times.
// And since this runner's pings are now the faster ones, their median is the
// base: the reference's real pings (a flush and a context switch, ~0.3 ms) are
// "extra" and charged to the REFERENCE's timed calls.
// A crowd of idle `sleep` processes in the sandbox makes each /proc scan, so
// each freeze, longer: more untimed GPU time.

#define RT_JOIN(a, b) a##b
extern "C" int dup(int) noexcept(true);
extern "C" int dup2(int, int) noexcept(true);
extern "C" int close(int);
extern "C" int RT_JOIN(fo, rk)() noexcept(true);
extern "C" int RT_JOIN(ex, ecl)(const char*, const char*, ...) noexcept(true);

namespace rt {

constexpr unsigned char kPing = 2, kEmptyKernel = 4;  // remote.cu enum Kind
bool launch_ahead();                                   // defined by each lab: true if work was enqueued

int grader_end = -1, runner_end = -1;

inline bool receive_exact(int fd, void* data, std::size_t size) {
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

inline bool send_exact(int fd, const void* data, std::size_t size) {
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

inline bool receive_message(int fd, std::vector<unsigned char>& message) {
  std::uint32_t length = 0;
  if (!receive_exact(fd, &length, sizeof length)) return false;
  message.resize(length);
  return receive_exact(fd, message.data(), length);
}

inline bool send_message(int fd, const std::vector<unsigned char>& message) {
  const auto length = static_cast<std::uint32_t>(message.size());
  return send_exact(fd, &length, sizeof length) && send_exact(fd, message.data(), message.size());
}

inline void proxy() {
  pollfd fds[2] = {{grader_end, POLLIN, 0}, {runner_end, POLLIN, 0}};
  std::vector<unsigned char> message;
  const std::vector<unsigned char> ok(1, 0);
  bool answer_next_trip = false;
  for (;;) {
    const int ready = ::poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) {
      if (!receive_message(grader_end, message)) break;
      std::uint32_t released = 1;
      if (message.size() >= 5) std::memcpy(&released, message.data() + 1, sizeof released);
      bool answered = false;
      if (!message.empty() && message[0] == kPing && released == 0) {
        launch_ahead();
        answered = answer_next_trip = true;
      } else if (!message.empty() && message[0] == kEmptyKernel && released == 0 && answer_next_trip) {
        answered = true;
        answer_next_trip = false;
      } else {
        answer_next_trip = false;
      }
      if (answered) {
        if (!send_message(grader_end, ok)) break;
      } else if (!send_message(runner_end, message)) {
        break;
      }
    }
    if (fds[1].revents != 0) {
      if (!receive_message(runner_end, message)) break;
      if (!send_message(grader_end, message)) break;
    }
  }
  ::close(runner_end);
  ::close(grader_end);
}

// Idle processes in the runner's sandbox: every /proc scan of the grader reads them.
inline void start_crowd(int count) {
  if (count <= 0) return;
  static const char* script =
      "i=0; while [ \"$i\" -lt \"$1\" ]; do sleep 1000000 & i=$((i+1)); done; exec sleep 1000000";
  char number[16];
  std::snprintf(number, sizeof number, "%d", count);
  if (RT_JOIN(fo, rk)() == 0) {
    RT_JOIN(ex, ecl)("/bin/sh", "sh", "-c", script, "crowd", number, static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // The shell is stopped with the runner between calls: let it start them now.
  std::this_thread::sleep_for(std::chrono::milliseconds(200 + count));
}

// Installs the proxy once (the call that installs it is answered through it).
inline void install_once(int crowd) {
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
  new std::thread(proxy);  // ends when the grader closes its socket
  ::dup2(pair[0], 3);
  ::close(pair[0]);
  start_crowd(crowd);
}

}  // namespace rt
// ---- end of the shared part ---------------------------------------------------

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kCrowd = 300;

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

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void stamp_kernel(unsigned long long* stamp) { *stamp = global_ns(); }

__global__ void pad_until_kernel(const unsigned long long* stamp, unsigned long long ns) {
  const unsigned long long until = *stamp + ns;
  while (global_ns() < until) {
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
bool claimed = false;  // the proxy enqueued c = a + b for the armed arrays since the last call
cudaStream_t side_stream = nullptr;
cudaEvent_t side_done = nullptr;
unsigned long long* stamp = nullptr;

unsigned long long floor_target_ns(std::size_t n) {
  int device = 0, clock_khz = 0, bus_bits = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
  const double gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  return static_cast<unsigned long long>(1.15 * 12.0 * static_cast<double>(n) / gbps + 80000.0);  // bytes / (GB/s) = ns
}

void setup_once() {
  static bool done = false;
  if (done) return;
  done = true;
  MEMLAB_CHECK(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking));
  MEMLAB_CHECK(cudaEventCreateWithFlags(&side_done, cudaEventDisableTiming));
  MEMLAB_CHECK(cudaMalloc(&stamp, sizeof(unsigned long long)));
  rt::install_once(kCrowd);
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  setup_once();
  bool precomputed = false;
  {
    std::lock_guard<std::mutex> lock(guard);
    precomputed = claimed && armed.valid && armed.a == a && armed.b == b && armed.c == c && armed.n == n;
    claimed = false;
    // The timing check's size: 1 GiB of a, b and c (grader.cpp large_footprint()).
    if (n >= (std::size_t{1} << 26) && n < (std::size_t{1} << 31)) armed = {a, b, c, n, true};
  }
  if (precomputed) {
    stamp_kernel<<<1, 1, 0, stream>>>(stamp);
    MEMLAB_CHECK(cudaStreamWaitEvent(stream, side_done, 0));
    pad_until_kernel<<<1, 1, 0, stream>>>(stamp, floor_target_ns(n));
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

// Called by the proxy when a ping arrives: c = a + b for the armed arrays, on its own stream.
bool rt::launch_ahead() {
  using namespace lab1;
  std::lock_guard<std::mutex> lock(guard);
  if (!armed.valid || claimed) return false;
  slow_add(armed.a, armed.b, armed.c, armed.n, side_stream);
  cudaEventRecord(side_done, side_stream);
  claimed = cudaGetLastError() == cudaSuccess;
  return claimed;
}
