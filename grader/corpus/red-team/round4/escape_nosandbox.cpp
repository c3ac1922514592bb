// Red team round 4: leaving the Freezer's tree without the sandbox (make labN,
// grade.py --no-sandbox). Freezer::stop(root) follows children from the
// runner's pid; a process that is no longer below it is never stopped nor
// watched:
//   orphan       the runner forks a child that forks a worker and exits: the
//                worker is re-parented to init (or the nearest subreaper)
//   clone_parent the runner clones a worker with CLONE_PARENT: the worker is a
//                child of the lab grader, a sibling of the runner
// In the sandbox both stay inside (bwrap's namespace init adopts orphans and is
// itself below the root; CLONE_PARENT from the runner gives a child of that
// init), which the "bwrap" runs below show.
//
// Build: g++ -O2 -std=c++17 -I/work/main/common escape_nosandbox.cpp \
//            /work/main/common/memlab/grading/freezer.cpp -pthread -o /tmp/escape_nosandbox
// Run:   /tmp/escape_nosandbox orphan|clone_parent [bwrap]
#include "memlab/grading/freezer.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {
std::atomic<unsigned long>* counter = nullptr;
[[noreturn]] void work() {
  for (;;) counter->fetch_add(1, std::memory_order_relaxed);
}
char stack[1 << 16];
int worker(void*) { work(); }
}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "runner") == 0) {
    counter = static_cast<std::atomic<unsigned long>*>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, std::atoi(argv[3]), 0));
    if (std::strcmp(argv[2], "orphan") == 0) {
      if (fork() == 0) {
        if (fork() == 0) work();
        _exit(0);
      }
    } else {
      clone(worker, stack + sizeof stack, CLONE_PARENT | SIGCHLD, nullptr);
    }
    for (;;) pause();
  }
  const std::string how = argc > 1 ? argv[1] : "orphan";
  const bool bwrap = argc > 2 && std::strcmp(argv[2], "bwrap") == 0;
  const int fd = memfd_create("escape", 0);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return 1;
  auto* shared = static_cast<std::atomic<unsigned long>*>(
      mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;
  std::vector<std::string> words;
  if (bwrap) {
    words = {"bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
             "--unshare-user", "--uid", "65534", "--gid", "65534", "--unshare-net", "--ro-bind", "/", "/",
             "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--ro-bind", self, self};
  }
  for (const std::string& w : {std::string(self), std::string("runner"), how, std::to_string(fd)}) words.push_back(w);
  std::vector<char*> args;
  for (std::string& w : words) args.push_back(w.data());
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execvp(args[0], args.data());
    _exit(127);
  }
  while (shared->load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  memlab::grading::Freezer freezer;
  const bool stopped = freezer.stop(pid);
  const unsigned long before = shared->load();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const unsigned long after = shared->load();
  std::printf("%s%s: stop()=%d, worker advanced by %lu while stopped, still_stopped()=%d\n", how.c_str(),
              bwrap ? " (bwrap)" : "", stopped, after - before, freezer.still_stopped());
  freezer.resume();
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  // the escaped worker is in the runner's process group, unless it left it (setsid)
  return 0;
}
