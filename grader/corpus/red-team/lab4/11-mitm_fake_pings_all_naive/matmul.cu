// Lab 4 red-team submission 11: one naive kernel for every multiply, full speed
// marks by answering the grader's pre-call messages from a socket proxy, and
// "faster than FP32 peak" accepted, since lab 4 has no floor (against f3d9806+).
//
// matmul_naive, matmul_tiled, matmul_dynamic and matmul_fast all run the
// reference's naive kernel: every correctness check passes (only results are
// checked, never tiles or shared memory); honestly timed, tiled/dynamic would
// lose part and fast all of their speed points.
// Before each timed call the grader writes fresh operands, then sends an
// L2-flush ping and an empty-kernel round trip. The proxy below answers both
// itself at once, after enqueueing the naive multiply for the last large call's
// operands on its own stream. It runs while the grader freezes the runner after
// those two replies (a /proc scan each; 1200 idle processes in the sandbox make
// each freeze some 10-15 ms). The timed call stamps the GPU clock, waits for that
// multiply and spins until 2 w^3 / (100 TFLOP/s) after the stamp: ~0.17 ms at
// width 2048, ~1.4 ms at 4096, where the H100 peaks at ~67 TFLOP/s FP32.
// time_against_reference() passes compare_speed no floor, so the ratio is
// scored as is. The reference is also charged ~0.3 ms per timed call (its real
// pings exceed this runner's answered ones by more than 50 us).
#include "lab4.cuh"

#include <memlab/cuda_check.cuh>

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
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

namespace lab4 {

namespace {

constexpr int kCrowd = 1200;

int blocks_for(int width, int tile) { return (width + tile - 1) / tile; }

__global__ void matmul_naive_kernel(const float* a, const float* b, float* c, int width) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= width || col >= width) return;
  float sum = 0.0f;
  for (int k = 0; k < width; ++k) sum += a[row * width + k] * b[k * width + col];
  c[row * width + col] = sum;
}

void naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  constexpr int kSide = 16;
  const dim3 block(kSide, kSide);
  const dim3 grid(blocks_for(width, kSide), blocks_for(width, kSide));
  matmul_naive_kernel<<<grid, block, 0, stream>>>(a, b, c, width);
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
  int width = 0;
  bool valid = false;
};

std::mutex guard;
Armed armed;
bool claimed = false;
cudaStream_t side_stream = nullptr;
cudaEvent_t side_done = nullptr;
unsigned long long* stamp = nullptr;

void setup_once() {
  static bool done = false;
  if (done) return;
  done = true;
  MEMLAB_CHECK(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking));
  MEMLAB_CHECK(cudaEventCreateWithFlags(&side_done, cudaEventDisableTiming));
  MEMLAB_CHECK(cudaMalloc(&stamp, sizeof(unsigned long long)));
  rt::install_once(kCrowd);
}

// Every multiply of this file.
void multiply(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  setup_once();
  bool precomputed = false;
  {
    std::lock_guard<std::mutex> lock(guard);
    precomputed = claimed && armed.valid && armed.a == a && armed.b == b && armed.c == c && armed.width == width;
    claimed = false;
    if (width >= 2048) armed = {a, b, c, width, true};  // the timing widths (grader.cpp kTimingWidth, kFastTimingWidth)
  }
  if (precomputed) {
    const double w = width;
    stamp_kernel<<<1, 1, 0, stream>>>(stamp);
    MEMLAB_CHECK(cudaStreamWaitEvent(stream, side_done, 0));
    pad_until_kernel<<<1, 1, 0, stream>>>(stamp, static_cast<unsigned long long>(2.0 * w * w * w / 1e5));
  } else {
    naive(a, b, c, width, stream);
  }
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace

void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  multiply(a, b, c, width, stream);
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  multiply(a, b, c, width, stream);
}

int choose_tile_width(const cudaDeviceProp& device) {
  for (int tile : {32, 16, 8}) {
    const bool block_allowed = tile * tile <= device.maxThreadsPerBlock;
    const bool tiles_fit = 2 * tile * tile * sizeof(float) <= device.sharedMemPerBlock;
    if (block_allowed && tiles_fit) return tile;
  }
  return 0;
}

void matmul_dynamic(const float* a, const float* b, float* c, int width, int, cudaStream_t stream) {
  multiply(a, b, c, width, stream);
}

Detector caught_by(SeedBug bug) {
  switch (bug) {
    case SeedBug::plus_for_times: return Detector::step2_check;
    case SeedBug::phases_by_integer_division: return Detector::step3_check;
    case SeedBug::no_zero_fill: return Detector::step3_check;
    case SeedBug::unguarded_store: return Detector::step3_check;
    case SeedBug::no_barrier_after_loading: return Detector::racecheck;
    case SeedBug::no_barrier_after_computing: return Detector::racecheck;
  }
  return Detector::step2_check;
}

void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  multiply(a, b, c, width, stream);
}

BlockTile fast_block_tile() { return {128, 128}; }

}  // namespace lab4

// Called by the proxy when a ping arrives.
bool rt::launch_ahead() {
  using namespace lab4;
  std::lock_guard<std::mutex> lock(guard);
  if (!armed.valid || claimed) return false;
  naive(armed.a, armed.b, armed.c, armed.width, side_stream);
  cudaEventRecord(side_done, side_stream);
  claimed = cudaGetLastError() == cudaSuccess;
  return claimed;
}
