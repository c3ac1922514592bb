// Freezer: stand-in processes for a runner (a busy loop, a child of it, and one
// that continues itself with a SIGCONT timer, as a red-team file did).
#include "memlab/grading/catch2.hpp"
#include "memlab/grading/freezer.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
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

// A child process running @p body; killed and reaped by the destructor.
struct Child {
  pid_t pid;
  explicit Child(void (*body)()) : pid(::fork()) {
    if (pid == 0) {
      body();
      std::_Exit(0);
    }
  }
  ~Child() {
    ::kill(pid, SIGKILL);
    ::kill(pid, SIGCONT);
    ::waitpid(pid, nullptr, 0);
  }
};

void pause_a_little() { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }

void continues_itself_every_two_milliseconds() {
  struct sigaction action = {};
  action.sa_handler = [](int) {};
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGCONT, &action, nullptr);
  sigevent event = {};
  event.sigev_notify = SIGEV_SIGNAL;
  event.sigev_signo = SIGCONT;
  timer_t timer;
  ::timer_create(CLOCK_MONOTONIC, &event, &timer);
  itimerspec every = {{0, 2000000}, {0, 2000000}};
  ::timer_settime(timer, 0, &every, nullptr);
  spin_forever();
}

int grandchild_pipe[2];

// In a process group of its own (so that the test can end both), forks a
// spinning child and writes its pid to grandchild_pipe.
void forks_a_spinning_child() {
  ::setpgid(0, 0);
  const pid_t grandchild = ::fork();
  if (grandchild == 0) spin_forever();
  if (::write(grandchild_pipe[1], &grandchild, sizeof grandchild) != sizeof grandchild) std::_Exit(1);
  spin_forever();
}

}  // namespace

TEST_CASE("a stopped process stays stopped until it is resumed", "[freezer]") {
  Child child(spin_forever);
  Freezer freezer;
  REQUIRE(freezer.stop(child.pid));
  CHECK(freezer.holding());
  pause_a_little();
  CHECK(freezer.still_stopped());
  freezer.resume();
  CHECK_FALSE(freezer.holding());
  CHECK(freezer.still_stopped());  // nothing held
}

TEST_CASE("a process that continues itself is seen to have run", "[freezer]") {
  Child child(continues_itself_every_two_milliseconds);
  pause_a_little();  // its timer is set
  Freezer freezer;
  freezer.stop(child.pid);
  pause_a_little();
  CHECK_FALSE(freezer.still_stopped());
  freezer.resume();
}

TEST_CASE("a process's children are stopped with it, and watched", "[freezer]") {
  REQUIRE(::pipe(grandchild_pipe) == 0);
  Child child(forks_a_spinning_child);
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
