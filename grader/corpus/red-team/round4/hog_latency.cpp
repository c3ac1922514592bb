// Red team round 4: what an unfrozen relay member (relay_bypass.cpp) can do to
// the reference's timed calls with no GPU at all. Every runner is pinned to the
// same CPU (remote.cu set_up_runners: runner_cpu), and a relay member inherits
// the student's runner's affinity, so it spins on the CPU the reference's runner
// needs. Stand-in for a timed call (remote.cu send_and_wait): the "reference
// runner" is stopped between calls; the grader continues it, sends a request,
// the runner spins WORK_US (its spinning cudaDeviceSynchronize) and replies;
// the grader's clock runs from SIGCONT to the reply. With HOGS > 0, that many processes
// spin on the same CPU meanwhile (as a relay member would, only while the
// student's own runner is stopped).
//
// Build: g++ -O2 -std=c++17 hog_latency.cpp -o /tmp/hog_latency
// Run:   /tmp/hog_latency WORK_US CALLS HOGS (spinning processes on the runners' CPU)
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using Clock = std::chrono::steady_clock;

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

int main(int argc, char** argv) {
  const int work_us = argc > 1 ? std::atoi(argv[1]) : 100;
  const int calls = argc > 2 ? std::atoi(argv[2]) : 200;
  const int hogs = argc > 3 ? std::atoi(argv[3]) : 0;
  const int runner_cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
  int sockets[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sockets);
  const pid_t runner = fork();
  if (runner == 0) {
    pin(runner_cpu);
    char byte;
    for (;;) {
      while (recv(sockets[1], &byte, 1, MSG_DONTWAIT) != 1) {
      }  // read_all's spin
      const auto start = Clock::now();
      while (Clock::now() - start < std::chrono::microseconds(work_us)) {
      }  // the kernel, waited for by spinning
      send(sockets[1], &byte, 1, 0);
    }
  }
  std::vector<pid_t> hoggers;
  for (int h = 0; h < hogs; ++h) {
    const pid_t hogger = fork();
    if (hogger == 0) {
      pin(runner_cpu);
      for (volatile unsigned long x = 0;; x = x + 1) {
      }
    }
    hoggers.push_back(hogger);
  }
  pin(0);
  std::vector<double> ms;
  char byte = 1;
  for (int i = 0; i < calls; ++i) {
    kill(runner, SIGSTOP);
    usleep(2000);  // the other side's call
    const auto start = Clock::now();
    kill(runner, SIGCONT);
    send(sockets[0], &byte, 1, 0);
    while (recv(sockets[0], &byte, 1, 0) != 1) {
    }
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("work %d us, hogs %d: median %.3f ms, p10 %.3f, p90 %.3f\n", work_us, hogs, ms[ms.size() / 2],
              ms[ms.size() / 10], ms[ms.size() * 9 / 10]);
  kill(runner, SIGKILL);
  for (pid_t hogger : hoggers) kill(hogger, SIGKILL);
  while (wait(nullptr) > 0) {
  }
  return 0;
}
