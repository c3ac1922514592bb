// Stress test of the freezer (common/memlab/grading/freezer.cpp, unchanged) with no GPU:
// two stand-in runners on one CPU (runner a under a three-level process tree like the
// sandbox's, runner b flat), each a spinning main thread plus sleepers in poll(), stopped
// and continued alternately; counts "ran while stopped" when nothing continued them.
//   g++ -O2 -std=c++17 -I common grader/corpus/red-team/round3/freezer_stress.cpp \
//       common/memlab/grading/freezer.cpp -o /tmp/freezer_stress -lpthread
//   /tmp/freezer_stress 3000 12 2     # rounds, sleeper threads, their poll() timeout in ms
// Measured here (2 CPUs, kernel 6.18, another build running): 0 in about 28,000 checks.
#include "memlab/grading/freezer.hpp"
#include <sched.h>
#include <signal.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>
using namespace std::chrono;
static void pin(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); sched_setaffinity(0, sizeof s, &s); }
// A stand-in runner: the main thread spins (as remote.cu's read_all does for 20 ms of CPU),
// `sleepers` threads sleep in poll() with a timeout (as a driver's helper threads do).
static void runner(int sleepers, int poll_ms) {
  pin(1);
  for (int i = 0; i < sleepers; ++i) new std::thread([poll_ms] { for (;;) ::poll(nullptr, 0, poll_ms); });
  volatile unsigned long x = 0;
  for (;;) {
    auto t = steady_clock::now();
    while (steady_clock::now() - t < microseconds(300)) ++x;  // spin
    ::poll(nullptr, 0, 0);
  }
}
int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 2000;
  const int sleepers = argc > 2 ? atoi(argv[2]) : 8;
  const int poll_ms = argc > 3 ? atoi(argv[3]) : 5;
  pid_t a = fork();
  if (a == 0) { setpgid(0, 0); pin(1); pid_t c = fork(); if (c == 0) { pid_t d = fork(); if (d == 0) runner(sleepers, poll_ms); for(;;) waitpid(d, nullptr, 0);} for(;;) waitpid(c, nullptr, 0); }
  pid_t b = fork();
  if (b == 0) { runner(sleepers, poll_ms); _exit(0); }
  pin(0);
  std::this_thread::sleep_for(milliseconds(200));
  memlab::grading::Freezer fa, fb;
  std::mt19937 rng(1);
  int false_runs = 0, stop_failures = 0;
  fb.stop(b);
  for (int i = 0; i < rounds; ++i) {
    // a's call: continue it, let it run, stop it; then b's call the same; check the stopped one never ran
    for (auto* pair : {&fa, &fb}) {
      memlab::grading::Freezer& f = *pair;
      pid_t pid = pair == &fa ? a : b;
      memlab::grading::Freezer& other = pair == &fa ? fb : fa;
      if (!f.still_stopped()) ++false_runs;
      f.resume();
      std::this_thread::sleep_for(microseconds(50 + rng() % 400));
      if (!f.stop(pid)) ++stop_failures;
      std::this_thread::sleep_for(microseconds(50 + rng() % 400));
      if (!other.still_stopped()) ++false_runs;
    }
  }
  std::printf("rounds %d sleepers %d: 'ran while stopped' %d, stop failures %d\n", rounds, sleepers, false_runs, stop_failures);
  fa.resume(); fb.resume();
  kill(-a, SIGKILL); kill(a, SIGKILL); kill(b, SIGKILL); /* grandchildren die by PDEATHSIG? no: kill explicitly below */ waitpid(a, nullptr, 0); waitpid(b, nullptr, 0);
}
