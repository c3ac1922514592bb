// Red team round 4: the relay of relay_bypass.cpp as a lab build would hold it
// (host code only; a lab function would call start_relay() on its first call).
// It names nothing the lexical scan forbids: clone() comes from <sched.h>,
// the stacks from new[], and a member ends by returning (glibc's clone() makes
// the exit system call). The scan test:
//   cd grader && python3 -c "import sys; sys.path.insert(0,'.'); \
//     from memlab_grader.scan import scan_source; \
//     print(scan_source(open('corpus/red-team/round4/relay_student_snippet.cu').read(), ['cublas','thrust','cub']))"
#include <sched.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace {

constexpr int kStacks = 256;
constexpr std::size_t kStackSize = 64 * 1024;
char* relay_stacks = nullptr;
std::atomic<std::uint64_t> relay_progress{0};

std::uint64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One member: its work (here a counter; a real one would hog the runners' CPU
// while the reference is timed, or release GPU work queued behind a wait on
// host memory), then its successor, a child of the runner's main thread.
int relay_member(void* argument) {
  const auto index = reinterpret_cast<std::uintptr_t>(argument);
  const std::uint64_t start = now_us();
  while (now_us() - start < 100) relay_progress.fetch_add(1, std::memory_order_relaxed);
  const std::uintptr_t next = (index + 1) % kStacks;
  clone(relay_member, relay_stacks + (next + 1) * kStackSize, CLONE_VM | CLONE_PARENT | SIGCHLD,
        reinterpret_cast<void*>(next));
  return 0;
}

}  // namespace

// Called once, from the runner's main thread (a lab function runs there).
void start_relay() {
  static bool started = false;
  if (started) return;
  started = true;
  signal(SIGCHLD, SIG_IGN);  // members vanish as they end
  for (int i = 0; i < 300; ++i) std::thread([] { for (;;) std::this_thread::sleep_for(std::chrono::hours(1)); }).detach();
  relay_stacks = new char[kStacks * kStackSize];
  clone(relay_member, relay_stacks + kStackSize, CLONE_VM | SIGCHLD, nullptr);
}
