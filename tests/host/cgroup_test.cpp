// Cgroup and the Freezer on a cgroup: stand-in runners that count in shared
// memory, so a test sees whether anything of them ran while it was held.
#include "memlab/grading/catch2.hpp"
#include "memlab/grading/cgroup.hpp"
#include "memlab/grading/freezer.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

using memlab::grading::Cgroup;
using memlab::grading::Freezer;

// Where this machine lets no process make cgroups (a container without a
// writable cgroup file system), a test says why and checks nothing.
#if defined(SKIP)
#define REQUIRE_CGROUPS()                                                             \
  if (!Cgroup::why_unusable().empty()) SKIP("no cgroup here: " << Cgroup::why_unusable())
#else
#define REQUIRE_CGROUPS()                                           \
  if (!Cgroup::why_unusable().empty()) {                            \
    WARN("no cgroup here, not tested: " << Cgroup::why_unusable()); \
    return;                                                         \
  }
#endif

namespace {

// Counters the stand-ins raise while they run, in memory every process of the test shares.
struct Shared {
  std::atomic<unsigned long> ticks{0};     // raised by every spinning process
  std::atomic<int> started{0};             // processes that have begun to spin
  std::atomic<int> relay_generations{0};   // processes of a relay so far
};

Shared* shared_memory() {
  void* memory = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(memory != MAP_FAILED);
  return new (memory) Shared;
}

[[noreturn]] void spin(Shared* shared) {
  shared->started.fetch_add(1);
  for (;;) shared->ticks.fetch_add(1, std::memory_order_relaxed);
}

// A process that starts the next and ends, again and again: at any moment one
// of them is alive, and a new one is born every few microseconds.
[[noreturn]] void relay(Shared* shared) {
  shared->started.fetch_add(1);
  for (;;) {
    shared->relay_generations.fetch_add(1);
    shared->ticks.fetch_add(1);
    const pid_t next = ::fork();
    if (next != 0) std::_Exit(0);
  }
}

// A stand-in runner inside @p cgroup: moved in before it runs @p body, as the
// grader's runners are between fork and exec. Waits until it has started.
pid_t start_inside(const Cgroup& cgroup, Shared* shared, void (*body)(Shared*), int processes = 1) {
  const int before = shared->started.load();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!cgroup.enter()) std::_Exit(3);
    body(shared);
    std::_Exit(0);
  }
  while (shared->started.load() < before + processes) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return pid;
}

// Forks a spinning child in a session of its own (out of the runner's
// process group, as a setsid escape would), then spins itself.
[[noreturn]] void spin_with_escaped_child(Shared* shared) {
  if (::fork() == 0) {
    ::setsid();
    spin(shared);
  }
  spin(shared);
}

void pause_a_little() { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }

// Whether any process of the stand-in ran during a pause.
bool ran_during_a_pause(Shared* shared) {
  const unsigned long before = shared->ticks.load();
  pause_a_little();
  return shared->ticks.load() != before;
}

bool exists(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

}  // namespace

TEST_CASE("a frozen cgroup stays frozen whatever signal its processes get", "[cgroup]") {
  REQUIRE_CGROUPS();
  Shared* shared = shared_memory();
  Cgroup cgroup("test-signals");
  REQUIRE(cgroup.usable());
  const pid_t runner = start_inside(cgroup, shared, spin);
  Freezer freezer(std::move(cgroup));
  REQUIRE(freezer.stop(runner));
  CHECK_FALSE(ran_during_a_pause(shared));
  ::kill(runner, SIGCONT);  // what a runner could arrange for itself
  CHECK_FALSE(ran_during_a_pause(shared));
  CHECK(freezer.still_stopped());
  freezer.resume();
  CHECK(ran_during_a_pause(shared));
  CHECK(freezer.kill_all(2.0));
  ::waitpid(runner, nullptr, 0);
}

TEST_CASE("a relay of short-lived processes is frozen with the cgroup it was born in", "[cgroup]") {
  REQUIRE_CGROUPS();
  Shared* shared = shared_memory();
  Cgroup cgroup("test-relay");
  const pid_t first = start_inside(cgroup, shared, relay);
  Freezer freezer(std::move(cgroup));
  for (int round = 0; round < 20; ++round) {
    REQUIRE(freezer.stop(first));
    const int generations = shared->relay_generations.load();
    pause_a_little();
    CHECK(shared->relay_generations.load() == generations);
    CHECK(freezer.still_stopped());
    freezer.resume();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  CHECK(freezer.kill_all(2.0));
  ::waitpid(first, nullptr, 0);
}

TEST_CASE("killing a cgroup ends what left the runner's process group", "[cgroup]") {
  REQUIRE_CGROUPS();
  Shared* shared = shared_memory();
  Cgroup cgroup("test-kill");
  const pid_t runner = start_inside(cgroup, shared, spin_with_escaped_child, 2);
  Freezer freezer(std::move(cgroup));
  CHECK(freezer.kill_all(2.0));
  ::waitpid(runner, nullptr, 0);
  CHECK_FALSE(ran_during_a_pause(shared));  // the child in its own session too
}

TEST_CASE("a cgroup ends its processes and is removed with its owner", "[cgroup]") {
  REQUIRE_CGROUPS();
  Shared* shared = shared_memory();
  std::string folder;
  pid_t runner = -1;
  {
    Cgroup cgroup("test-removed");
    folder = cgroup.folder();
    runner = start_inside(cgroup, shared, spin);
    CHECK(exists(folder + "/cgroup.procs"));
  }
  CHECK_FALSE(exists(folder));
  CHECK_FALSE(ran_during_a_pause(shared));
  ::waitpid(runner, nullptr, 0);
}

// Red team round 5: a runner that could make cgroups of its own inside its
// cgroup (where it can mount the file system again) could leave them behind,
// or a chain too deep to remove. A runner's cgroup allows none.
TEST_CASE("no cgroup can be made inside a runner's cgroup", "[cgroup]") {
  REQUIRE_CGROUPS();
  std::string folder;
  {
    Cgroup cgroup("test-nested");
    folder = cgroup.folder();
    CHECK(::mkdir((folder + "/made-inside").c_str(), 0755) != 0);
  }
  CHECK_FALSE(exists(folder));
}

// Red team round 5: a grader killed before it removed its cgroups, and a later
// one with the same pid (a PID namespace per run repeats them).
TEST_CASE("a cgroup left by an earlier process of the same pid is replaced", "[cgroup]") {
  REQUIRE_CGROUPS();
  Cgroup first("test-reused");
  const std::string folder = first.folder();
  Cgroup second("test-reused");  // the first is still there: as if left behind
  CHECK(second.usable());
  CHECK(second.folder() == folder);
  CHECK(exists(folder + "/cgroup.procs"));
}

TEST_CASE("the Freezer falls back to signals without a cgroup", "[cgroup]") {
  Shared* shared = shared_memory();
  const pid_t runner = ::fork();
  if (runner == 0) spin(shared);
  while (shared->started.load() < 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  Freezer freezer{Cgroup()};
  CHECK_FALSE(freezer.kill_all(0.0));  // nothing to kill by cgroup
  REQUIRE(freezer.stop(runner));
  CHECK_FALSE(ran_during_a_pause(shared));
  ::kill(runner, SIGCONT);  // signals can be undone, and that is seen
  pause_a_little();
  CHECK_FALSE(freezer.still_stopped());
  freezer.resume();
  ::kill(runner, SIGKILL);
  ::waitpid(runner, nullptr, 0);
}
