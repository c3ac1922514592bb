// Red team round 4: a "relay" of short-lived processes that the Freezer never stops.
//
// Stand-in for a student's runner (no GPU): the runner ignores SIGCHLD, parks
// THREADS idle threads, and starts a relay: each member is a process sharing
// the runner's memory (clone CLONE_VM), works WORK_US microseconds, starts the
// next member with CLONE_PARENT (so every member is a child of the runner's
// main thread), and exits (auto-reaped: it vanishes from /proc at once).
//
// Why Freezer::stop() never sees a member alive (freezer.cpp, process_tree):
//   1. children_of(runner) reads /proc/R/task/R/children first (the main
//      thread's list, where every member is), then the children file of each
//      other thread: with THREADS threads that takes THREADS x ~3 us;
//   2. only then is read_stat(member) called. A member listed in step 1 lives
//      less than that, so it is gone: read_stat fails and it is skipped
//      silently (only a missing root counts as "not stopped");
//   3. its successor was appended to a list the grader had already read.
// So a round finds everything it saw stopped, stop() returns true, and
// still_stopped() only re-reads the pids it recorded: the relay runs through
// the whole freeze and nothing notices. No race has to be won when the life of
// a member is below the listing delay; with few threads it is a race that
// costs nothing to lose (a caught member is just stopped).
//
// Build:  g++ -O2 -std=c++17 -I/work/main/common relay_bypass.cpp \
//             /work/main/common/memlab/grading/freezer.cpp -pthread -o /tmp/relay_bypass
// Run:    /tmp/relay_bypass [bwrap|direct] THREADS WORK_US FREEZES
//   bwrap: the runner under grade.py's bubblewrap namespaces (sandbox.py's
//   words); direct: the runner is the Freezer's root (make labN, --no-sandbox).
#include "memlab/grading/freezer.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Shared {
  std::atomic<std::uint64_t> progress;     // work done by relay members
  std::atomic<std::uint64_t> generations;  // members that finished
  std::atomic<int> ready;
  std::uint64_t work_ns;
};

Shared* shared = nullptr;
constexpr int kStacks = 256;
constexpr std::size_t kStackSize = 64 * 1024;
char* stacks = nullptr;

std::uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull + t.tv_nsec;
}

// One relay member: runs on its own stack in the runner's address space, with
// no TLS of its own, so only raw system calls and the vDSO clock.
int member(void* arg) {
  const auto index = reinterpret_cast<std::uintptr_t>(arg);
  const std::uint64_t start = now_ns();
  while (now_ns() - start < shared->work_ns) shared->progress.fetch_add(1, std::memory_order_relaxed);
  shared->generations.fetch_add(1);
  const std::uintptr_t next = (index + 1) % kStacks;
  clone(member, stacks + (next + 1) * kStackSize, CLONE_VM | CLONE_PARENT | SIGCHLD, reinterpret_cast<void*>(next));
  syscall(SYS_exit, 0);
  return 0;
}

int runner(int fd, int threads, bool relay) {
  shared = static_cast<Shared*>(mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  if (shared == MAP_FAILED) return 2;
  signal(SIGCHLD, SIG_IGN);  // members are reaped by the kernel as they exit
  pthread_attr_t small;
  pthread_attr_init(&small);
  pthread_attr_setstacksize(&small, 64 * 1024);
  for (int i = 0; i < threads; ++i) {
    pthread_t t;
    pthread_create(&t, &small, [](void*) -> void* { for (;;) pause(); }, nullptr);
  }
  stacks = static_cast<char*>(mmap(nullptr, kStacks * kStackSize, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  // The first member is a child of the main thread (its children file is read first).
  if (relay) clone(member, stacks + kStackSize, CLONE_VM | SIGCHLD, reinterpret_cast<void*>(0));
  shared->ready = 1;
  for (;;) pause();  // the runner waiting on its socket
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "runner") == 0) {
    return runner(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]) != 0);
  }
  const std::string mode = argc > 1 ? argv[1] : "bwrap";
  const int threads = argc > 2 ? std::atoi(argv[2]) : 300;
  const int work_us = argc > 3 ? std::atoi(argv[3]) : 100;
  const int freezes = argc > 4 ? std::atoi(argv[4]) : 100;
  const bool relay = argc > 5 ? std::atoi(argv[5]) != 0 : true;

  const int fd = memfd_create("relay", 0);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return 1;
  auto* s = static_cast<Shared*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  s->work_ns = static_cast<std::uint64_t>(work_us) * 1000;

  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;
  const std::string fd_text = std::to_string(fd), threads_text = std::to_string(threads);
  std::vector<std::string> words;
  if (mode == "bwrap") {
    // grader/memlab_grader/sandbox.py's bwrap_words (no GPU devices), with this program bound back.
    words = {"bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
             "--unshare-user", "--uid", "65534", "--gid", "65534", "--unshare-net", "--ro-bind", "/", "/",
             "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--ro-bind", self, self, "--chdir", "/tmp"};
  }
  for (const std::string& w : {std::string(self), std::string("runner"), fd_text, threads_text,
                               std::string(relay ? "1" : "0")}) {
    words.push_back(w);
  }
  std::vector<char*> argv_runner;
  for (std::string& w : words) argv_runner.push_back(w.data());
  argv_runner.push_back(nullptr);

  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execvp(argv_runner[0], argv_runner.data());
    _exit(127);
  }
  setpgid(pid, pid);
  while (s->ready == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));

  int stop_failed = 0, detected = 0, undetected_runs = 0;
  double stop_ms_total = 0, ran_ms_total = 0;
  for (int i = 0; i < freezes; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a call: everything runs
    memlab::grading::Freezer freezer;
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = freezer.stop(pid);
    const auto t1 = std::chrono::steady_clock::now();
    stop_ms_total += std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (!ok) {
      ++stop_failed;
      freezer.resume();
      continue;
    }
    const std::uint64_t before = s->progress.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the other side is timed
    const std::uint64_t after = s->progress.load();
    const bool still = freezer.still_stopped();  // require_still_stopped()
    if (!still) {
      ++detected;
    } else if (after != before) {
      ++undetected_runs;
      ran_ms_total += 20;
    }
    freezer.resume();
  }
  std::printf("mode=%s threads=%d work_us=%d relay=%d freezes=%d: stop() failed %d, still_stopped() false %d, "
              "relay ran undetected through %d freezes; mean stop %.2f ms; %llu members in all\n",
              mode.c_str(), threads, work_us, relay ? 1 : 0, freezes, stop_failed, detected, undetected_runs,
              stop_ms_total / freezes, static_cast<unsigned long long>(s->generations.load()));
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return 0;
}
