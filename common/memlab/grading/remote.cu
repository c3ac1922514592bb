// Both ends of a remote call (remote.hpp): the grader's stubs and runners, and
// the runner's loop. The wire format is a 4-byte length and a payload; the
// length carries the file descriptors of the buffers a call passes (SCM_RIGHTS):
//
//   request: kind (u8), released buffer ids (u32 count, u64 each), preamble
//            (u8 flush_l2, i32 hold_us, u8 time_each_launch, u32 shake_seed,
//            u8 shake_reversed, u8 hold_after_records), then for a call: function (u32) and
//            arguments; for calls timed in the runner: function (u32), count
//            (i32), arguments
//   reply:   status (u8: 0 ok, 1 failed), then for a call the kernels it
//            launched (Codec<Launches>) and the result; for timed calls the
//            times; or a message (u32 length, bytes) and whether the runner's
//            GPU context is lost (u8)
#include "memlab/grading/remote.hpp"
#include "memlab/grading/driver_entry.hpp"
#include "memlab/grading/freezer.hpp"
#include "memlab/grading/phases.hpp"
#include "memlab/grading/shareable.hpp"

#include "memlab/cuda_check.cuh"
#include "memlab/resources.cuh"
#include "memlab/stats.hpp"
#include "memlab/text.hpp"
#include "memlab/timing.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

namespace memlab::grading::remote {

namespace {

enum Kind : std::uint8_t { kCall = 1, kTimeCalls = 3, kEmptyKernel = 4 };
enum Status : std::uint8_t { kOk = 0, kFailed = 1 };
// A message longer than this is refused: a runner cannot make the grader allocate without bound.
constexpr std::uint32_t kLongestMessage = 64u << 20;

using Clock = std::chrono::steady_clock;

std::string whole_seconds(double seconds) { return format_text("%.0f s", seconds); }

// ---- sockets -------------------------------------------------------------

// Sends @p size bytes from @p data; the first piece carries @p descriptors (SCM_RIGHTS).
bool write_all(int socket, const void* data, std::size_t size, const std::vector<int>& descriptors = {}) {
  const auto* next = static_cast<const unsigned char*>(data);
  bool descriptors_sent = descriptors.empty();
  while (size > 0) {
    iovec piece{const_cast<unsigned char*>(next), size};
    msghdr message{};
    message.msg_iov = &piece;
    message.msg_iovlen = 1;
    std::vector<char> control;
    if (!descriptors_sent) {
      control.assign(CMSG_SPACE(descriptors.size() * sizeof(int)), 0);
      message.msg_control = control.data();
      message.msg_controllen = control.size();
      cmsghdr* header = CMSG_FIRSTHDR(&message);
      header->cmsg_level = SOL_SOCKET;
      header->cmsg_type = SCM_RIGHTS;
      header->cmsg_len = CMSG_LEN(descriptors.size() * sizeof(int));
      std::memcpy(CMSG_DATA(header), descriptors.data(), descriptors.size() * sizeof(int));
    }
    const ssize_t written = ::sendmsg(socket, &message, MSG_NOSIGNAL);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    descriptors_sent = true;
    next += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

// The most file descriptors one message carries (a lab function has far fewer pointer parameters).
constexpr std::size_t kMostDescriptors = 32;

bool send_message(int socket, const std::vector<unsigned char>& payload, const std::vector<int>& descriptors = {}) {
  if (descriptors.size() > kMostDescriptors) throw std::logic_error("grading: too many buffers in one call");
  const auto length = static_cast<std::uint32_t>(payload.size());
  return write_all(socket, &length, sizeof length, descriptors) && write_all(socket, payload.data(), payload.size());
}

enum class Received { ok, closed, timed_out, malformed };

// CPU time this thread has used, in milliseconds: it stands still while a runner is stopped.
double thread_cpu_ms() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

// Reads one piece into @p data and keeps the file descriptors that came with
// it in @p descriptors (closing them if there is nowhere to keep them, or too many).
ssize_t receive_piece(int socket, void* data, std::size_t size, std::vector<int>* descriptors) {
  iovec piece{data, size};
  char control[CMSG_SPACE(kMostDescriptors * sizeof(int))];
  msghdr message{};
  message.msg_iov = &piece;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  const ssize_t got = ::recvmsg(socket, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (got <= 0) return got;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int descriptor = -1;
      std::memcpy(&descriptor, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
      if (descriptors != nullptr && descriptors->size() < kMostDescriptors) {
        descriptors->push_back(descriptor);
      } else {
        ::close(descriptor);
      }
    }
  }
  return got;
}

// Reads exactly @p size bytes, waiting at most until @p deadline (none if @p
// deadline is null). For its first kSpinMs of CPU time it spins on the socket:
// a wake-up from poll() comes tens of microseconds late, and unevenly, and
// every timed call begins with a request and ends with a reply. A runner
// stopped between calls keeps its spin for the next one, since its CPU time
// stands still. Then it sleeps in poll(), so that a long call or an idle
// runner does not keep a CPU busy.
constexpr double kSpinMs = 20.0;

Received read_all(int socket, void* data, std::size_t size, const Clock::time_point* deadline,
                  std::vector<int>* descriptors = nullptr) {
  auto* next = static_cast<unsigned char*>(data);
  const double spin_until = thread_cpu_ms() + kSpinMs;
  while (size > 0) {
    const ssize_t got = receive_piece(socket, next, size, descriptors);
    if (got > 0) {
      next += got;
      size -= static_cast<std::size_t>(got);
      continue;
    }
    if (got == 0) return Received::closed;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Received::closed;
    const Clock::time_point now = Clock::now();
    if (deadline != nullptr && now >= *deadline) return Received::timed_out;
    if (thread_cpu_ms() < spin_until) continue;
    const double left_ms = deadline == nullptr ? 1000.0 : std::chrono::duration<double, std::milli>(*deadline - now).count();
    pollfd wait{socket, POLLIN, 0};
    if (::poll(&wait, 1, static_cast<int>(std::min(left_ms, 1000.0)) + 1) < 0 && errno != EINTR) return Received::closed;
  }
  return Received::ok;
}

// Reads one message; the descriptors sent with it go to @p descriptors (closed if it is null).
Received receive_message(int socket, std::vector<unsigned char>& payload, const Clock::time_point* deadline,
                         std::vector<int>* descriptors = nullptr) {
  std::uint32_t length = 0;
  Received result = read_all(socket, &length, sizeof length, deadline, descriptors);
  if (result != Received::ok) return result;
  if (length > kLongestMessage) return Received::malformed;
  payload.resize(length);
  return read_all(socket, payload.data(), length, deadline);
}

// ---- the grader's side ---------------------------------------------------

struct Runner {
  pid_t pid = -1;
  int socket = -1;
  bool warm = false;  // its first calls are done (start_runner)
  std::set<std::uint64_t> sent;  // ids of the grader's allocations this runner may have mapped
  Freezer freezer;  // stops its processes between calls
};

RunnerSetup setup;
Runner runners[3];  // by Side
constexpr Side kSides[] = {Side::student, Side::reference, Side::base};
// Recent timed calls of an empty kernel to the base runner (measure_base),
// whose median is taken off every timed call of either side.
std::vector<double> recent_bases_ms;
Preamble next_preamble;
void (*student_trouble_handler)(const Trouble&) = nullptr;

// The student's lab functions (by index) that ran past the call limit in this
// run. Their later calls get a fifth of it, at least a second: a function that
// did not return once most often never returns, and each hang waits out the
// whole limit (run 87: lab 1's eight hanging submissions took 91 s of 330 s,
// each hanging twice, in the correctness check and in the speed check; 59 s in
// run 94 with this). A second is three times the longest call of any lab's
// reference, a fresh runner's first included (264-322 ms, run 94 of
// docs/measurements/trusted-grading.md), and a function that never ran past the
// limit keeps all of it in every call.
std::set<std::uint32_t> student_functions_out_of_time;

double call_limit_seconds(Side side, std::optional<std::uint32_t> function) {
  if (side == Side::student && function && student_functions_out_of_time.count(*function) > 0) {
    return std::min(setup.call_seconds, std::max(1.0, setup.call_seconds / 5));
  }
  return setup.call_seconds;
}

// The idle probe: an empty kernel between two events takes a few microseconds
// on an idle GPU, and waits for a time slice when another process's kernels
// are running.
__global__ void idle_probe_kernel() {}

struct IdleProbe {
  Stream stream;
  Event start, stop;
  double calibrated_ms = -1.0;
  double quick_wall_ms = -1.0;

  double once() {
    start.record(stream);
    idle_probe_kernel<<<1, 1, 0, stream>>>();
    MEMLAB_CHECK_LAUNCH();
    stop.record(stream);
    return Event::elapsed_ms(start, stop);
  }
  double median_of(int count) {
    std::vector<double> ms;
    for (int i = 0; i < count; ++i) ms.push_back(once());
    return median(ms);
  }
  // What an idle GPU shows: measured before the first runner starts, so that
  // no lab code can have work running while it is taken.
  void calibrate() {
    if (calibrated_ms >= 0) return;
    calibrated_ms = median_of(21);
    std::vector<double> ms;
    for (int i = 0; i < 21; ++i) ms.push_back(wall_once());
    quick_wall_ms = median(ms);
  }
  bool idle() {
    calibrate();
    // Another process's kernel holds the GPU for its time slice (milliseconds):
    // far above the few microseconds of an idle launch.
    return median_of(5) <= std::max(20.0 * calibrated_ms, 0.25);
  }
  // An empty kernel launched and waited for (spinning), by the host's clock.
  double wall_once() {
    const Clock::time_point begin = Clock::now();
    idle_probe_kernel<<<1, 1, 0, stream>>>();
    MEMLAB_CHECK_LAUNCH();
    cudaError_t state = cudaErrorNotReady;
    while ((state = cudaStreamQuery(stream)) == cudaErrorNotReady) {
    }
    MEMLAB_CHECK(state);
    return std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
  }
  // Waits until the GPU runs no other process's work: while another context's
  // kernels run, each empty kernel of the grader's waits for a time slice, and
  // the GPU goes back to the other context between them. Returns false if it
  // is still busy after @p limit_seconds.
  bool settle(double limit_seconds) {
    calibrate();
    const Clock::time_point begin = Clock::now();
    while (wall_once() > std::max(4.0 * quick_wall_ms, 0.03)) {
      if (std::chrono::duration<double>(Clock::now() - begin).count() > limit_seconds) return false;
    }
    return true;
  }
};

Runner& runner_of(Side side) { return runners[static_cast<int>(side)]; }
std::string end_runner(Side side, bool kill_it);
[[noreturn]] void fail(Side side, const std::string& kind, const std::string& message);

// Between calls a runner is stopped, every thread of every process of it
// (Freezer): no thread of the lab's code can watch the grader write the next
// inputs and compute ahead of the timed call, or load the GPU while the other
// side is timed. The reference's runners are stopped too, so that every side
// wakes up alike.
void freeze(Side side) {
  const Phase phase("freeze");
  Runner& runner = runner_of(side);
  // A cgroup freezes a thread once it leaves the kernel: a few seconds' patience
  // for one in a long system call (the wait is outside every timed call).
  const bool by_cgroup = runner.freezer.has_cgroup();
  if (runner.pid <= 0 || runner.freezer.stop(runner.pid, by_cgroup ? 5.0 : 1.0)) return;
  end_runner(side, true);
  fail(side, "crashed",
       by_cgroup ? "the processes of " + std::string(describe(side)) +
                       " did not stop within 5 s when the grader stopped them between calls (a thread inside a "
                       "long system call?); they were ended"
                 : "the processes of " + std::string(describe(side)) +
                       " kept starting again when the grader stopped them between calls; they were ended");
}

// Continues a stopped runner. Nothing of it may have run while it was stopped:
// only a signal the lab's code arranged itself (a SIGCONT from a timer or
// another process) can do that, to work while the other side is timed or
// before its own timed call. Such a runner is ended, and the call fails.
void require_still_stopped(Side side) {
  const Phase phase("still_stopped");
  if (!runner_of(side).freezer.still_stopped()) {
    end_runner(side, true);
    fail(side, "ran_while_stopped",
         std::string(describe(side)) +
             " ran while the grader had stopped it between calls (a SIGCONT it arranged itself?); its process "
             "was ended. Nothing may run between the calls of the lab's functions.");
  }
}

void continue_runner(Side side) { runner_of(side).freezer.resume(); }

// The base runner runs the reference's build, and only ever empty kernels.
const std::string& library_of(Side side) {
  return side == Side::student ? setup.student_library : setup.reference_library;
}

void report_trouble(Side side, const std::string& kind, const std::string& message) {
  if (side == Side::student && student_trouble_handler != nullptr) student_trouble_handler({kind, message});
}

std::string describe_end(int status) {
  if (WIFSIGNALED(status)) {
    const int number = WTERMSIG(status);
    return std::string("was killed by signal ") + std::to_string(number) + " (" + strsignal(number) + ")";
  }
  // A sandbox passes its child's death by signal N on as exit status 128 + N.
  if (WIFEXITED(status) && WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + NSIG && !setup.prefix.empty()) {
    const int number = WEXITSTATUS(status) - 128;
    return std::string("was killed by signal ") + std::to_string(number) + " (" + strsignal(number) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

// Ends @p side's runner and everything it started; returns how it ended, if it had.
std::string end_runner(Side side, bool kill_it) {
  Runner& runner = runner_of(side);
  if (runner.pid <= 0) return "";
  const Phase phase(kill_it ? "kill_runner" : "end_runner");
  continue_runner(side);  // a stopped process cannot end by itself
  if (runner.socket >= 0) ::close(runner.socket);
  if (kill_it) {
    runner.freezer.kill_all(0.0);  // its cgroup, where there is one: what it started dies with it
    ::kill(-runner.pid, SIGKILL);  // its process group, where there is not
    ::kill(runner.pid, SIGKILL);
  }
  int status = 0;
  std::string how;
  // Without a kill, the runner ends by itself once its socket closes.
  for (int tries = 0; tries < 200; ++tries) {
    const pid_t done = ::waitpid(runner.pid, &status, kill_it ? 0 : WNOHANG);
    if (done == runner.pid) {
      how = describe_end(status);
      break;
    }
    if (done < 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (tries == 199) {
      ::kill(-runner.pid, SIGKILL);
      ::kill(runner.pid, SIGKILL);
      ::waitpid(runner.pid, &status, 0);
    }
  }
  if (kill_it) ::kill(-runner.pid, SIGKILL);  // a child that outlived it in the group
  // Whatever the lab's code left in the runner's cgroup is killed, and waited
  // for as long as a call may take: processes can be made slow to die (large
  // mappings to tear down), and the next timing must not run beside them.
  if (!runner.freezer.kill_all(setup.call_seconds) && runner.freezer.has_cgroup()) {
    std::fprintf(stderr, "grading: processes of %s were still ending %s after it was ended\n", describe(side),
                 whole_seconds(setup.call_seconds).c_str());
  }
  runner = Runner{};  // the cgroup is removed
  return how;
}

[[noreturn]] void fail(Side side, const std::string& kind, const std::string& message) {
  report_trouble(side, kind, message);
  throw RunnerError(message);
}

IdleProbe& idle_probe() {
  static IdleProbe probe;
  return probe;
}

// The GPU stayed busy: ends the student's runner (its GPU work ends with its
// context, once the process is gone) and says whose work it was.
[[noreturn]] void gpu_kept_busy() {
  end_runner(Side::student, true);
  for (int wait = 0; wait < 20; ++wait) {
    if (idle_probe().idle()) {
      fail(Side::student, "left_work_running",
           "the GPU stayed busy after the student's code returned: work it launched was still running when the "
           "grader went on (its process was ended). A lab function's work must be done when the call ends, and "
           "nothing may run between calls.");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw RunnerError("the GPU is busy with another process's work: timings here would be wrong; grade on an idle GPU");
}

// Before a timed call, the GPU must be idle: work the student's code left
// running would slow the reference and flatter the student, or would have
// computed the student's answer before its timed call began.
void require_idle_gpu() {
  const Phase phase("require_idle");
  for (int wait = 0; wait < 5; ++wait) {
    if (idle_probe().idle()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  gpu_kept_busy();
}

// Sends @p request and waits for the reply; a runner that ends or runs out of
// time is ended and reported. With @p timed_ms, the call is timed by the
// grader's clock: from before the runner is continued (a thread of it may run
// from then on) to the moment the GPU is idle again, seen from the grader's own
// context. A reply sent before the work it launched is done gains nothing: the
// wait for that work is inside the time.
std::vector<unsigned char> send_and_wait(Side side, const std::vector<unsigned char>& request,
                                         double* timed_ms = nullptr, const std::vector<int>& descriptors = {},
                                         std::optional<std::uint32_t> function = std::nullopt) {
  Runner& runner = runner_of(side);
  const std::string who = describe(side);
  const double limit_seconds = call_limit_seconds(side, function);
  std::vector<unsigned char> reply;
  Received received = Received::closed;
  require_still_stopped(side);
  const Clock::time_point started = Clock::now();
  continue_runner(side);
  const Phase call_phase(side == Side::base ? "call_base" : "call_lab");
  if (send_message(runner.socket, request, descriptors)) {
    const Clock::time_point deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_seconds));
    received = receive_message(runner.socket, reply, &deadline);
  }
  if (received == Received::timed_out) {
    if (side == Side::student && function) student_functions_out_of_time.insert(*function);
    end_runner(side, true);
    const std::string earlier =
        limit_seconds < setup.call_seconds
            ? " It had run past the " + whole_seconds(setup.call_seconds) +
                  " limit in an earlier call, so its later calls get " + whole_seconds(limit_seconds) + "."
            : "";
    fail(side, "timed_out",
         who + " did not return within " + whole_seconds(limit_seconds) +
             "; its process was ended (a kernel that never finishes?)." + earlier);
  }
  if (received != Received::ok) {
    const std::string how = end_runner(side, received == Received::malformed);
    fail(side, "crashed",
         "the process running " + who + (how.empty() ? " ended" : " " + how) +
             " during the call (a crash, exit() or abort() in the lab's code?)");
  }
  if (timed_ms != nullptr) {
    if (!idle_probe().settle(setup.call_seconds)) gpu_kept_busy();
    *timed_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  }
  freeze(side);
  return reply;
}

std::vector<unsigned char> request_of(Side side, Kind kind, const Preamble& preamble = Preamble{}) {
  Runner& runner = runner_of(side);
  Writer out;
  out.raw<std::uint8_t>(kind);
  // Allocations the grader has freed since: the runner closes them.
  std::vector<std::uint64_t> released;
  for (auto it = runner.sent.begin(); it != runner.sent.end();) {
    if (shareable::alive(*it)) {
      ++it;
    } else {
      released.push_back(*it);
      it = runner.sent.erase(it);
    }
  }
  out.raw<std::uint32_t>(static_cast<std::uint32_t>(released.size()));
  for (std::uint64_t id : released) out.raw(id);
  out.raw<std::uint8_t>(preamble.flush_l2);
  out.raw<std::int32_t>(preamble.hold_microseconds);
  out.raw<std::uint8_t>(preamble.time_each_launch);
  out.raw<std::uint32_t>(preamble.shake_seed);
  out.raw<std::uint8_t>(preamble.shake_reversed);
  out.raw<std::uint8_t>(preamble.hold_after_records);
  return out.bytes();
}

// The reply's result, or the failure it reports thrown.
Reader check_reply(Side side, const std::vector<unsigned char>& reply);

// Base samples kept; their median is taken off each timed call.
constexpr int kBaseSamples = 31;

// The base: a timed call of an empty kernel to the base runner, just as a
// timed call runs (the messages, the switch of the GPU to the runner's context
// and back, the wait until it is idle). Measured again before every timed
// call, of either side, so a drift of the machine moves the figure taken off
// with it. A runner of its own: a call to a process that has just run starts
// sooner (measured: 5-7% of lab 1's timed call, had the reference's own
// runner measured the base), so a timed call of either side follows the same
// third process. What the student's runner answers cannot change it.
void measure_base() {
  const Phase phase("measure_base");
  start_runner(Side::base);
  const std::vector<unsigned char> request = request_of(Side::base, kEmptyKernel);
  double ms = 0.0;
  check_reply(Side::base, send_and_wait(Side::base, request, &ms));
  recent_bases_ms.push_back(ms);
  if (recent_bases_ms.size() > static_cast<std::size_t>(kBaseSamples)) recent_bases_ms.erase(recent_bases_ms.begin());
}

Reader check_reply(Side side, const std::vector<unsigned char>& reply) {
  Reader in(reply);
  const auto status = in.raw<std::uint8_t>();
  if (status == kOk) return in;
  const auto length = in.raw<std::uint32_t>();
  std::string message(std::min<std::size_t>(length, in.left()), '\0');
  in.take(message.data(), message.size());
  const bool lost = in.left() > 0 && in.raw<std::uint8_t>() != 0;
  if (message.size() > 2000) message.resize(2000);
  if (lost) {
    end_runner(side, true);
    fail(side, "context_lost", message + " (the GPU context of " + describe(side) + " is lost; its process was ended)");
  }
  throw RunnerError(message);
}

// A sealed in-memory file of setup.allowed_code, made once, for the student's
// runners to read (-1 when any code is allowed).
int allowed_code_file() {
  static const int fd = [] {
    if (setup.allowed_code.empty()) return -1;
    const int file = ::memfd_create("memlab-allowed-code", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (file < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
    for (std::size_t done = 0; done < setup.allowed_code.size();) {
      const ssize_t wrote = ::write(file, setup.allowed_code.data() + done, setup.allowed_code.size() - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) throw std::runtime_error(std::string("writing the allowed GPU code: ") + std::strerror(errno));
      done += static_cast<std::size_t>(wrote);
    }
    ::fcntl(file, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    return file;
  }();
  return fd;
}

// Starts @p side's process and returns without waiting for it.
void spawn_runner(Side side) {
  Runner& runner = runner_of(side);
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  }
  // Only the student's runner is sandboxed: the reference is the grader's own
  // code, and its library must stay out of the student's sandbox.
  std::vector<std::string> words = side == Side::student ? setup.prefix : std::vector<std::string>{};
  words.insert(words.end(), {setup.program, "--library", library_of(side), "--socket", "3"});
  // The student's build may register only the code the grader read (registered_code.hpp), as fd 4.
  const int allowed_code = side == Side::student ? allowed_code_file() : -1;
  if (allowed_code >= 0) words.insert(words.end(), {"--allowed-code", "4"});
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  // A cgroup of its own where the grader may make one (cgroup.hpp): the kernel
  // then holds it between calls, and everything it starts dies with it.
  static int runners_started = 0;
  Cgroup cgroup(std::string(side == Side::student ? "student" : side == Side::reference ? "reference" : "base") +
                "-" + std::to_string(++runners_started));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a grader that dies takes its runners with it
    if (cgroup.usable() && !cgroup.enter()) {
      std::fprintf(stderr, "grading: cannot move the runner into its cgroup: %s\n", std::strerror(errno));
      std::_Exit(127);
    }
    if (setup.runner_cpu >= 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(setup.runner_cpu, &one);
      ::sched_setaffinity(0, sizeof one, &one);
    }
    ::setpgid(0, 0);
    ::dup2(sockets[1], 3);  // dup2 clears close-on-exec on the copy
    if (allowed_code >= 0) ::dup2(allowed_code, 4);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    // Nothing of the grader's reaches the runner but fds 0-3 (and 4, the allowed code: a cgroup folder's
    // fd, for one, would let a child be born outside the runner's cgroup): every other fd is closed.
    const unsigned first_closed = allowed_code >= 0 ? 5U : 4U;
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, first_closed, ~0U, 0U) != 0)
#endif
      for (int fd = static_cast<int>(first_closed); fd < 65536; ++fd) ::close(fd);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "grading: cannot start %s: %s\n", argv[0], std::strerror(errno));
    std::_Exit(127);
  }
  ::setpgid(pid, pid);
  ::close(sockets[1]);
  runner.pid = pid;
  runner.socket = sockets[0];
  runner.freezer = Freezer(std::move(cgroup));
}

}  // namespace

void start_runner(Side side) {
  Runner& runner = runner_of(side);
  if (runner.warm) return;
  const Phase phase(side == Side::student ? "start_student" : side == Side::reference ? "start_reference" : "start_base");
  if (setup.program.empty()) throw std::logic_error("grading: no runner set up");
  idle_probe().calibrate();
  if (runner.pid <= 0) spawn_runner(side);
  // The first start also starts the grader's own two runners: a runner's CUDA
  // start-up takes about 0.2 s (run 44's phases), and side by side they
  // overlap. Never the student's: no student process may exist before it is
  // needed (the reference is timed with none alive). Nothing is timed before
  // each has answered its first calls (warm_spawned_runners).
  static bool trusted_spawned = false;
  if (!trusted_spawned) {
    trusted_spawned = true;
    for (Side other : {Side::reference, Side::base}) {
      if (runner_of(other).pid <= 0) spawn_runner(other);
    }
  }
  runner.warm = true;  // before the first calls: measure_base starts the base runner again
  if (side == Side::base) {
    for (int i = 0; i < kBaseSamples; ++i) measure_base();
  } else {
    // The first calls of a new process are slow (its context, its module): not the lab function's.
    for (int i = 0; i < 3; ++i) check_reply(side, send_and_wait(side, request_of(side, kEmptyKernel)));
  }
}

namespace {

// A runner started beside another may still be starting its CUDA context: it
// makes its first calls before anything is timed.
void warm_spawned_runners() {
  for (Side side : kSides) {
    if (runner_of(side).pid > 0) start_runner(side);
  }
}

}  // namespace

const char* describe(Side side) {
  return side == Side::student ? "the student's code" : side == Side::reference ? "the reference" : "the grader's clock";
}

SharedPointer share(const void* device_pointer, Writer& out) {
  const std::optional<shareable::Allocation> allocation = shareable::find(device_pointer);
  if (!allocation) throw std::logic_error("grading: a lab function was given a pointer that is not a shareable buffer");
  SharedPointer shared;
  shared.buffer_id = allocation->id;
  shared.size = allocation->size;
  shared.offset = allocation->offset;
  shared.descriptor = out.attach(allocation->descriptor);
  for (Runner& runner : runners) runner.sent.insert(allocation->id);
  return shared;
}

void before_next_call(const Preamble& preamble) { next_preamble = preamble; }

void RemoteClock::start() {
  running_ = true;
  calls_ = 0;
  milliseconds_ = 0.0;
}

double RemoteClock::stop_ms() {
  running_ = false;
  return calls_ > 0 ? milliseconds_ : -1.0;
}

void RemoteClock::add(double milliseconds) {
  ++calls_;
  milliseconds_ += milliseconds;
}

RemoteClock& remote_clock() {
  static RemoteClock clock;
  return clock;
}

namespace {
// Per side, the kernels each call launched (launch_log()).
std::array<std::vector<Launches>, 3>& launch_logs() {
  static std::array<std::vector<Launches>, 3> logs;
  return logs;
}

// The order shake. A lab function enqueues its work on the stream it is given, which the runner
// creates non-blocking: work the function puts on the legacy default stream (cudaMemsetAsync or
// cudaMemcpyAsync without a stream, a launch without one), on a blocking stream of its own (which
// waits for the legacy stream, and so is held with it) or on a non-blocking stream of its own is
// not ordered with it. Left alone, such a race nearly always comes out right (red team 22's column
// sums zeroed on the legacy stream scored 100, run 95). So before each untimed call of the
// student's, the runner holds every one of those streams for a different time (shake_streams()),
// in an order drawn at random for a function's first call, reversed for its second, drawn again
// for its third, and so on: whichever way work depends across two of them, one call of every pair
// runs the dependent work first and the result is wrong. Per function, so that a check that calls
// two functions in turn still shakes each both ways (red team 28). Work ordered on the given
// stream only waits. Every other pair of calls also holds a stream after each event recorded on
// it (Preamble::hold_after_records), starting with either: that pulls apart work waiting for an
// event recorded too early, but gives the recording stream's later work a head start, which would
// hide a join that waits for nothing in every call (red team 34). Timed calls are not held.
Preamble order_shake(std::uint32_t function) {
  static std::map<std::uint32_t, Preamble> last_by_function;
  static std::random_device entropy;
  Preamble& shake = last_by_function[function];
  if (shake.shake_seed != 0 && !shake.shake_reversed) {
    shake.shake_reversed = true;
  } else {
    shake.hold_after_records = shake.shake_seed == 0 ? entropy() % 2 == 0 : !shake.hold_after_records;
    do shake.shake_seed = entropy(); while (shake.shake_seed == 0);
    shake.shake_reversed = false;
  }
  return shake;
}

// Work no call can answer for: the lab's functions launch their own kernels and hold the GPU code
// their build registered (launch_watch.hpp). The check that made the call fails.
void require_answerable(const Launches& launched) {
  if (launched.from_other_threads > 0) {
    throw RunnerError(format_text("%u kernel launches came from a thread of the code's own, not from the lab's "
                                  "function before it returned: the grader cannot tell which call they serve",
                                  launched.from_other_threads));
  }
  if (launched.modules_loaded > 0) {
    throw RunnerError(format_text("the code loaded GPU modules of its own, or kept the build's from loading (%u, at "
                                  "run time or in a constructor): the grader reads only the code the build holds, "
                                  "and every later call fails too",
                                  launched.modules_loaded));
  }
}
}  // namespace

std::vector<unsigned char> call(Side side, std::uint32_t index, const Writer& arguments) {
  Preamble preamble = std::exchange(next_preamble, Preamble{});  // before a runner's start makes calls of its own
  start_runner(side);
  // The runner reads what the grader just wrote: the grader's GPU work must be done first.
  MEMLAB_CHECK(cudaDeviceSynchronize());
  RemoteClock& clock = remote_clock();
  if (side == Side::student && !clock.running() && preamble.empty()) preamble = order_shake(index);
  if (clock.running()) {
    // Idle first: warming the base runner would otherwise wait out, inside
    // samples the median drops, work the student's code left running (red team 10).
    require_idle_gpu();
    warm_spawned_runners();
    measure_base();
  }
  std::vector<unsigned char> request = request_of(side, kCall, preamble);
  Writer tail;
  tail.raw(index);
  request.insert(request.end(), tail.bytes().begin(), tail.bytes().end());
  request.insert(request.end(), arguments.bytes().begin(), arguments.bytes().end());
  double milliseconds = 0.0;
  const std::vector<unsigned char> reply =
      send_and_wait(side, request, clock.running() ? &milliseconds : nullptr, arguments.descriptors(), index);
  Reader in = check_reply(side, reply);
  if (clock.running()) clock.add(milliseconds - base_ms());
  require_answerable(launch_logs()[static_cast<int>(side)].emplace_back(Codec<Launches>::get(in)));
  return std::vector<unsigned char>(reply.end() - static_cast<std::ptrdiff_t>(in.left()), reply.end());
}

const std::vector<Launches>& launch_log(Side side) { return launch_logs()[static_cast<int>(side)]; }

RunnerTimes time_calls_in_runner(Side side, std::uint32_t index, const Writer& arguments, int count) {
  const Preamble preamble = std::exchange(next_preamble, Preamble{});
  start_runner(side);
  MEMLAB_CHECK(cudaDeviceSynchronize());
  require_idle_gpu();
  std::vector<unsigned char> request = request_of(side, kTimeCalls, preamble);
  Writer tail;
  tail.raw(index);
  tail.raw<std::int32_t>(count);
  request.insert(request.end(), tail.bytes().begin(), tail.bytes().end());
  request.insert(request.end(), arguments.bytes().begin(), arguments.bytes().end());
  const std::vector<unsigned char> reply = send_and_wait(side, request, nullptr, arguments.descriptors(), index);
  Reader in = check_reply(side, reply);
  RunnerTimes times;
  times.all_queued_first = in.raw<std::uint8_t>() != 0;
  times.ms = Codec<std::vector<double>>::get(in);
  times.calls = Codec<std::vector<Launches>>::get(in);
  if (times.ms.size() != static_cast<std::size_t>(count) || times.calls.size() != static_cast<std::size_t>(count)) {
    throw RunnerError("the runner returned the wrong number of times");
  }
  for (const Launches& launched : times.calls) require_answerable(launched);
  return times;
}

void set_up_runners(const RunnerSetup& given) {
  setup = given;
  // Both runners on one CPU, the grader on the others: a
  // runner woken on a CPU that has been idle for a while starts tens of
  // microseconds later than one woken on a CPU that has just run (measured on
  // the H100 host: the student's calls, which follow the reference's base
  // measurement, took 20-60 us longer than the reference's own). Sharing one
  // CPU, each runner finds it as warm as the other did.
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return;
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  }
  setup.runner_cpu = cpus.back();
  cpu_set_t own = allowed;  // the grader (and the threads it starts later) on every other CPU
  CPU_CLR(setup.runner_cpu, &own);
  ::sched_setaffinity(0, sizeof own, &own);
}

void stop_runners() {
  // A runner ends by itself once its socket closes: closing all three first
  // overlaps their CUDA tear-downs (about 70 ms each, run 44's phases).
  for (Side side : kSides) {
    Runner& runner = runner_of(side);
    if (runner.pid <= 0) continue;
    continue_runner(side);  // a stopped process cannot end by itself
    if (runner.socket >= 0) ::close(runner.socket);
    runner.socket = -1;
  }
  for (Side side : kSides) end_runner(side, false);
  print_phases();
}

void kill_runner(Side side) { end_runner(side, true); }

double base_ms() { return recent_bases_ms.empty() ? 0.0 : median(recent_bases_ms); }

void on_student_trouble(void (*handler)(const Trouble&)) { student_trouble_handler = handler; }

// ---- the runner's side ---------------------------------------------------

namespace {

struct Opened {
  void* base = nullptr;
  std::size_t size = 0;
};
std::map<std::uint64_t, Opened> opened;
std::vector<int> received;  // the descriptors sent with the request being served
cudaStream_t own_stream = nullptr;
// Keeps its stream busy for @p nanoseconds (the order shake).
__global__ void wait_kernel(unsigned long long nanoseconds) {
  const auto now = [] {
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
  };
  const unsigned long long start = now();
  while (now() - start < nanoseconds) __nanosleep(1000);
}

}  // namespace

// Kernels, not host functions: the runtime may run a process's host functions one after another
// on one thread, and a stream's hold would then end when another's did (run 115). Enqueued once
// the call's buffers are mapped, so that nothing the mapping waits for uses up the hold. Each
// stream's place comes from a hash of the seed and the stream's handle alone, so that a stream
// made (or destroyed) between the two calls of a pair leaves the others' order as it was. Blocking
// streams of the build's (the per-thread default stream among them) get no wait of their own: they
// wait for the legacy stream's, and one of theirs before it would lengthen it.
namespace {
// wait_kernel and the driver's launch, for hold_after_event_record(): readied by shake_streams(),
// outside the launch watch's callback.
CUfunction wait_function = nullptr;
PFN_cuLaunchKernel_v4000 launch_kernel = nullptr;
}  // namespace

void hold_after_event_record(CUstream_st* stream) {
  if (wait_function == nullptr || launch_kernel == nullptr) return;
  unsigned long long nanoseconds = 1000ull * kShakeLongestUs;
  void* arguments[] = {&nanoseconds};
  // A stream of the build's that cannot take it is left as it is, as in the shake.
  (void)launch_kernel(wait_function, 1, 1, 1, 1, 1, 1, 0, stream, arguments, nullptr);
}

void shake_streams(const CallOptions& options, const std::vector<cudaStream_t>& made) {
  if (wait_function == nullptr) {
    cudaFunction_t function = nullptr;
    MEMLAB_CHECK(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(wait_kernel)));
    launch_kernel = driver_function<PFN_cuLaunchKernel_v4000>("cuLaunchKernel");
    wait_function = reinterpret_cast<CUfunction>(function);
  }
  std::vector<cudaStream_t> streams{own_stream, cudaStreamLegacy};
  for (cudaStream_t stream : made) {
    unsigned flags = 0;
    if (cudaStreamGetFlags(stream, &flags) == cudaSuccess && (flags & cudaStreamNonBlocking) != 0) {
      streams.push_back(stream);
    }
  }
  (void)cudaGetLastError();
  const auto place = [seed = options.shake_seed](cudaStream_t stream) {
    std::uint64_t z = (static_cast<std::uint64_t>(seed) << 32) ^ reinterpret_cast<std::uintptr_t>(stream);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;  // splitmix64's finaliser
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::sort(streams.begin(), streams.end(), [&](cudaStream_t a, cudaStream_t b) { return place(a) < place(b); });
  if (options.shake_reversed) std::reverse(streams.begin(), streams.end());
  const std::size_t last = streams.size() - 1;
  for (std::size_t rank = 0; rank < streams.size(); ++rank) {
    const std::size_t microseconds = kShakeShortestUs + (kShakeLongestUs - kShakeShortestUs) * rank / last;
    wait_kernel<<<1, 1, 0, streams[rank]>>>(1000ull * microseconds);
    const cudaError_t error = cudaGetLastError();  // a stream of the build's that cannot take it is left as it is
    if (streams[rank] == own_stream || streams[rank] == cudaStreamLegacy) MEMLAB_CHECK(error);
  }
}

namespace {

// When the last call's hold was over (CallOptions::hold_over_ns), set from the stream itself.
std::atomic<std::int64_t> hold_over_ns{0};
void mark_hold_over(void*) { hold_over_ns.store(steady_now_ns()); }

void close_released(Reader& in) {
  const auto count = in.raw<std::uint32_t>();
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto id = in.raw<std::uint64_t>();
    const auto it = opened.find(id);
    if (it == opened.end()) continue;
    shareable::unmap(it->second.base, it->second.size);
    opened.erase(it);
  }
}

// After the lab's code: the GPU error it left, if any, and whether the context is lost for good.
std::string cuda_trouble(bool& lost) {
  cudaError_t error = cudaDeviceSynchronize();
  if (error == cudaSuccess) error = cudaGetLastError();
  if (error == cudaSuccess) return "";
  // A sticky error (an illegal address, say) fails every later call too.
  lost = cudaDeviceSynchronize() != cudaSuccess;
  return std::string("CUDA error ") + cudaGetErrorName(error) + ": " + cudaGetErrorString(error);
}

std::vector<unsigned char> failure_reply(const std::string& message, bool lost) {
  Writer out;
  out.raw<std::uint8_t>(kFailed);
  out.raw<std::uint32_t>(static_cast<std::uint32_t>(message.size()));
  out.append(message.data(), message.size());
  out.raw<std::uint8_t>(lost);
  return out.bytes();
}

}  // namespace

void* open_shared(const SharedPointer& pointer) {
  auto it = opened.find(pointer.buffer_id);
  if (it == opened.end()) {
    if (pointer.descriptor >= received.size()) throw std::runtime_error("grading: a buffer came without its descriptor");
    void* base = shareable::map(received[pointer.descriptor], pointer.size);
    it = opened.emplace(pointer.buffer_id, Opened{base, pointer.size}).first;
  }
  if (pointer.offset >= it->second.size) throw std::runtime_error("grading: a pointer past its buffer");
  return static_cast<char*>(it->second.base) + pointer.offset;
}

cudaStream_t runner_stream() { return own_stream; }

int serve(int socket, const Handlers& handlers, const void* api) {
  // Spin while waiting for the GPU: a sleeping wait wakes up tens of
  // microseconds late, and unevenly, and every timed call ends with a wait.
  MEMLAB_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
  MEMLAB_CHECK(cudaStreamCreateWithFlags(&own_stream, cudaStreamNonBlocking));
  int device = 0;
  int l2_bytes = 0;
  MEMLAB_CHECK(cudaGetDevice(&device));
  MEMLAB_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  L2Flusher flusher(static_cast<std::size_t>(l2_bytes));
  std::vector<unsigned char> request;
  while (receive_message(socket, request, nullptr, &received) == Received::ok) {
    std::vector<unsigned char> reply;
    bool lost = false;
    try {
      Reader in(request);
      const auto kind = in.raw<std::uint8_t>();
      close_released(in);
      const bool flush = in.raw<std::uint8_t>() != 0;
      const auto hold = in.raw<std::int32_t>();
      CallOptions options;
      options.time_each_launch = in.raw<std::uint8_t>() != 0;
      options.shake_seed = in.raw<std::uint32_t>();
      options.shake_reversed = in.raw<std::uint8_t>() != 0;
      options.hold_after_records = in.raw<std::uint8_t>() != 0;
      if (handlers.prepare != nullptr) handlers.prepare(options);
      if (flush) flusher.flush(own_stream);
      if (hold > 0) {
        hold_stream(own_stream, std::min(hold, 100000));
        hold_over_ns.store(0);
        MEMLAB_CHECK(cudaLaunchHostFunc(own_stream, mark_hold_over, nullptr));
        options.hold_over_ns = &hold_over_ns;
      }
      Writer out;
      out.raw<std::uint8_t>(kOk);
      if (kind == kCall) {
        const auto index = in.raw<std::uint32_t>();
        handlers.call(api, index, options, in, out);
      } else if (kind == kEmptyKernel) {
        idle_probe_kernel<<<1, 1, 0, own_stream>>>();
        MEMLAB_CHECK_LAUNCH();
      } else if (kind == kTimeCalls) {
        const auto index = in.raw<std::uint32_t>();
        const auto count = std::clamp(in.raw<std::int32_t>(), 1, 1000);
        const std::vector<unsigned char> arguments(request.end() - static_cast<std::ptrdiff_t>(in.left()), request.end());
        // Each call's launches, as call() replies them (the result after them is not needed).
        std::vector<Launches> calls;
        const Work work = [&](cudaStream_t) {
          Reader again(arguments);
          Writer answer;
          handlers.call(api, index, CallOptions{}, again, answer);
          Reader launched(answer.bytes());
          calls.push_back(Codec<Launches>::get(launched));
        };
        const bool timed = options.time_each_launch && handlers.time_calls != nullptr && handlers.read_times != nullptr;
        if (timed) handlers.time_calls();
        bool all_queued_first = false;
        const std::vector<double> ms = time_sequence(work, count, own_stream, &all_queued_first);
        if (timed) handlers.read_times(calls);
        out.raw<std::uint8_t>(all_queued_first ? 1 : 0);
        Codec<std::vector<double>>::put(out, ms);
        Codec<std::vector<Launches>>::put(out, calls);
      }
      const std::string trouble = cuda_trouble(lost);
      reply = trouble.empty() ? out.bytes() : failure_reply(trouble, lost);
    } catch (const std::exception& error) {
      const std::string trouble = cuda_trouble(lost);
      reply = failure_reply(std::string(error.what()) + (trouble.empty() ? "" : " (" + trouble + ")"), lost);
    }
    for (int descriptor : received) ::close(descriptor);  // a mapping outlives its descriptor
    received.clear();
    if (!send_message(socket, reply) || lost) break;
  }
  return 0;
}

}  // namespace memlab::grading::remote
