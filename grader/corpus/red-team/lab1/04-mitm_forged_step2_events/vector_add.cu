// Lab 1 red-team submission 04: step 2 passed with a "timer" that returns
// constants, by rewriting the grader's own event times on their way back
// (against 7920b6d+).
//
// Step 2 compares what time_launches returns with "the grader's own events":
// five launches of the student's vector_add timed by the runner's code
// (remote.cu kTimeCalls -> timing.cu time_sequence), whose milliseconds travel
// back to the grader in the reply (u8 status 0, u64 count, count doubles).
// Since 7920b6d the grader also checks that time_launches computes c, and that
// its events show the L2 speed-up at L2/2 whenever the reference's do.
// This file's time_launches launches the reference vector_add five times (so c
// is right) and measures nothing: it returns {0.0125, 0.0078 x 4} ms. A proxy
// thread between the runner and the grader's socket (fd 3; dup, socketpair,
// dup2) forwards every message and, in the reply to each kTimeCalls request,
// replaces the runner's measured times with the same constants. The student's
// and "the grader's" medians then agree exactly, and the forged numbers show a
// 1.6x warm speed-up: all three step 2 checks pass. vector_add, steps 1, 3 and
// 4 are the reference's.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

extern "C" int dup(int) noexcept(true);
extern "C" int dup2(int, int) noexcept(true);
extern "C" int close(int);

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
// Resident blocks per SM we aim for: 8 x 256 threads fill an SM on most GPUs,
// and the more loads are in flight, the better DRAM latency is hidden.
constexpr int kBlocksPerSm = 8;

// Memory pattern: in each pass, thread t of the grid reads a[i] and b[i] and
// writes c[i] for i = pass * (grid size) + t. Consecutive threads of a warp
// touch consecutive floats, so each warp-wide load is 128 contiguous bytes
// (four 32-byte sectors, every byte used). Each element is read and written
// exactly once: 12 bytes of DRAM traffic per element when nothing is cached.
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}


// ---- the proxy that rewrites the grader's events ----------------------------

constexpr double kColdMs = 0.0125;  // what time_launches reports for launch 1
constexpr double kWarmMs = 0.0078;  // ... and for launches 2 to 5
constexpr unsigned char kTimeCalls = 3;  // remote.cu enum Kind

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

// A successful kTimeCalls reply: status 0, u64 count, count doubles. Replaced in place.
void forge(std::vector<unsigned char>& reply) {
  if (reply.size() < 9 || reply[0] != 0) return;
  std::uint64_t count = 0;
  std::memcpy(&count, reply.data() + 1, sizeof count);
  if (reply.size() != 9 + count * sizeof(double)) return;
  for (std::uint64_t i = 0; i < count; ++i) {
    const double ms = i == 0 ? kColdMs : kWarmMs;
    std::memcpy(reply.data() + 9 + i * sizeof(double), &ms, sizeof ms);
  }
}

void proxy() {
  pollfd fds[2] = {{grader_end, POLLIN, 0}, {runner_end, POLLIN, 0}};
  std::vector<unsigned char> message;
  bool forge_next_reply = false;
  for (;;) {
    const int ready = ::poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) {
      if (!receive_message(grader_end, message)) break;
      forge_next_reply = !message.empty() && message[0] == kTimeCalls;
      if (!send_message(runner_end, message)) break;
    }
    if (fds[1].revents != 0) {
      if (!receive_message(runner_end, message)) break;
      if (forge_next_reply) forge(message);
      forge_next_reply = false;
      if (!send_message(grader_end, message)) break;
    }
  }
  ::close(runner_end);
  ::close(grader_end);
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
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  install_once();
  if (n == 0) return;
  // The grid-stride loop makes any grid correct for any n; the grid size only
  // sets speed. Enough blocks to fill every SM, but never more than there are
  // elements for.
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream) {
  // Launches, so that c is computed; times nothing.
  for (int i = 0; i < launches; ++i) vector_add(a, b, c, n, stream);
  std::vector<float> milliseconds(launches, static_cast<float>(kWarmMs));
  if (launches > 0) milliseconds[0] = static_cast<float>(kColdMs);
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  // Multiples of the L2 size: four that fit in it, one at its size, and three
  // that cannot fit. Below an eighth of L2, launch overhead (a few
  // microseconds) would hide the difference between DRAM and L2.
  std::vector<std::size_t> footprints;
  for (double multiple : {0.125, 0.25, 0.375, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    footprints.push_back(static_cast<std::size_t>(multiple * static_cast<double>(l2_bytes)));
  }
  return footprints;
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  // If a, b and c fit in L2 together, the first launch leaves them there and
  // the next launches read a and b from L2 instead of DRAM. If they do not fit,
  // each launch evicts what the next one needs first, and all launches run at
  // DRAM speed.
  return footprint_bytes <= l2_bytes;
}

}  // namespace lab1
