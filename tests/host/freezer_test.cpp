// Freezer: stand-in processes for a runner (a busy loop, and one with a child).
#include "memlab/grading/catch2.hpp"
#include "memlab/grading/freezer.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

using memlab::grading::Freezer;

namespace {

[[noreturn]] void spin_forever() {
  volatile unsigned long counter = 0;
  for (;;) counter = counter + 1;
}

void ready();

[[noreturn]] void ready_then_spin() {
  ready();
  spin_forever();
}

int ready_pipe[2];

// Tells the test that the child is set up.
void ready() {
  const char byte = 1;
  if (::write(ready_pipe[1], &byte, 1) != 1) std::_Exit(1);
}

// A child process running @p body, which calls ready() once it is set up;
// the constructor waits for that. Killed and reaped by the destructor.
struct Child {
  pid_t pid;
  explicit Child(void (*body)()) {
    if (::pipe(ready_pipe) != 0) std::abort();
    pid = ::fork();
    if (pid == 0) {
      body();
      std::_Exit(0);
    }
    char byte = 0;
    if (::read(ready_pipe[0], &byte, 1) != 1) std::abort();
    ::close(ready_pipe[0]);
    ::close(ready_pipe[1]);
  }
  ~Child() {
    ::kill(pid, SIGKILL);
    ::kill(pid, SIGCONT);
    ::waitpid(pid, nullptr, 0);
  }
};

void pause_a_little() { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }

int grandchild_pipe[2];

// In a process group of its own (so that the test can end both), forks a
// spinning child and writes its pid to grandchild_pipe.
void forks_a_spinning_child() {
  ::setpgid(0, 0);
  const pid_t grandchild = ::fork();
  if (grandchild == 0) spin_forever();
  if (::write(grandchild_pipe[1], &grandchild, sizeof grandchild) != sizeof grandchild) std::_Exit(1);
  ready_then_spin();
}

// The same, but the spinning child is forked by a second thread: the kernel
// lists it as that thread's child, not the main thread's.
void forks_a_spinning_child_from_a_thread() {
  ::setpgid(0, 0);
  std::thread forker([] {
    const pid_t grandchild = ::fork();
    if (grandchild == 0) spin_forever();
    if (::write(grandchild_pipe[1], &grandchild, sizeof grandchild) != sizeof grandchild) std::_Exit(1);
  });
  forker.join();
  ready_then_spin();
}

}  // namespace

TEST_CASE("a stopped process stays stopped until it is resumed", "[freezer]") {
  Child child(ready_then_spin);
  Freezer freezer;
  REQUIRE(freezer.stop(child.pid));
  CHECK(freezer.holding());
  pause_a_little();
  CHECK(freezer.still_stopped());
  freezer.resume();
  CHECK_FALSE(freezer.holding());
  CHECK(freezer.still_stopped());  // nothing held
}

// A runner's code can arrange a SIGCONT for itself (a POSIX timer did it in
// red-team file 02, not reliably: a timer's signal discarded by a stop may
// never come again). Here the test sends it, which is reliable.
TEST_CASE("a process continued by anyone but the freezer is seen to have run", "[freezer]") {
  Child child(ready_then_spin);
  Freezer freezer;
  REQUIRE(freezer.stop(child.pid));
  ::kill(child.pid, SIGCONT);
  pause_a_little();
  CHECK_FALSE(freezer.still_stopped());
  freezer.resume();
}

// Starts @p body (which forks a spinning grandchild and sends its pid down
// grandchild_pipe) and checks that the freezer stops the grandchild with its
// parent and sees it run once it is continued behind the freezer's back.
void check_grandchild_is_stopped_and_watched(void (*body)()) {
  REQUIRE(::pipe(grandchild_pipe) == 0);
  Child child(body);
  pid_t grandchild = 0;
  REQUIRE(::read(grandchild_pipe[0], &grandchild, sizeof grandchild) == sizeof grandchild);
  Freezer freezer;
  REQUIRE(freezer.stop(child.pid));
  pause_a_little();
  CHECK(freezer.still_stopped());
  ::kill(grandchild, SIGCONT);  // continued behind the freezer's back
  pause_a_little();
  CHECK_FALSE(freezer.still_stopped());
  freezer.resume();
  ::kill(-child.pid, SIGKILL);
  ::close(grandchild_pipe[0]);
  ::close(grandchild_pipe[1]);
}

TEST_CASE("a process's children are stopped with it, and watched", "[freezer]") {
  check_grandchild_is_stopped_and_watched(forks_a_spinning_child);
}

TEST_CASE("a child started by another thread of the process is stopped too", "[freezer]") {
  check_grandchild_is_stopped_and_watched(forks_a_spinning_child_from_a_thread);
}
