// A stand-in for the lab grader's runner handling (remote.cu: start_runner,
// send_and_wait's freeze/require_still_stopped/continue, end_runner), built
// on the real Cgroup and Freezer, with no GPU. It starts a stand-in
// reference runner (frozen, as between calls) and then the "student" runner:
// forked, moved into its cgroup with Cgroup::enter() between fork and exec,
// in a process group of its own, its fd 3 a pipe, then exec'd, either
// directly (--no-sandbox) or under the sandbox's bwrap words read from a file
// (one word per line, as grade.py writes them for the lab grader).
//
// Every process of the student that "ticks" writes one byte a millisecond
// into fd 3; the harness counts bytes per phase, so "ticks while frozen"
// means something of the student ran while the Freezer said it was held.
//
//   g++ -std=c++17 -O1 -I common -o /tmp/r5/harness harness.cpp \
//       common/memlab/grading/cgroup.cpp common/memlab/grading/freezer.cpp -lpthread
//   harness [--words FILE] [--rounds N] [--call-ms N] [--end kill|exit] [--die-frozen] [--ref-call]
//           [--kill-wait S] [--patience S] -- PROGRAM ARGS...
// --kill-wait: end_runner's kill_all(setup.call_seconds) after the runner is
// reaped (added by the round 5 fixes; 60, the default call limit, unless told).
// --patience: the student's freeze patience (5 s with a cgroup since the fixes, 1 s before).
// --ref-call: after each held window, the reference's runner is continued for
// a 300 ms "call" (the student still held) and stopped again.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "memlab/grading/cgroup.hpp"
#include "memlab/grading/freezer.hpp"

using memlab::grading::Cgroup;
using memlab::grading::Freezer;
using Clock = std::chrono::steady_clock;

static std::atomic<unsigned long> ticks{0};

static double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

static std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::string t = s.str();
  for (char& c : t)
    if (c == '\n') c = ' ';
  return t;
}

static void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// CPU busy time of the whole machine (jiffies, all CPUs) from /proc/stat.
static void cpu_times(unsigned long long& busy, unsigned long long& total) {
  std::ifstream in("/proc/stat");
  std::string cpu;
  unsigned long long v[10] = {};
  in >> cpu;
  for (auto& x : v) in >> x;
  total = 0;
  for (auto x : v) total += x;
  busy = total - v[3] - v[4];
}

static std::vector<std::string> leftovers(const std::string& parent) {
  std::vector<std::string> out;
  const std::string prefix = "memlab-" + std::to_string(getpid()) + "-";
  if (DIR* d = opendir(parent.c_str())) {
    while (dirent* e = readdir(d))
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) out.push_back(parent + "/" + e->d_name);
    closedir(d);
  }
  return out;
}

int main(int argc, char** argv) {
  std::string words_file, end = "kill";
  int rounds = 3, call_ms = 300;
  double kill_wait = 60.0, patience = 5.0;
  bool die_frozen = false, ref_call = false;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--words") words_file = argv[++i];
    else if (a == "--rounds") rounds = std::atoi(argv[++i]);
    else if (a == "--call-ms") call_ms = std::atoi(argv[++i]);
    else if (a == "--end") end = argv[++i];
    else if (a == "--die-frozen") die_frozen = true;
    else if (a == "--ref-call") ref_call = true;
    else if (a == "--kill-wait") kill_wait = std::atof(argv[++i]);
    else if (a == "--patience") patience = std::atof(argv[++i]);
    else if (a == "--") { ++i; break; }
  }
  if (i >= argc) { std::fprintf(stderr, "usage: harness [options] -- PROGRAM ARGS\n"); return 2; }
  std::printf("[harness] pid %d, cgroups: %s\n", getpid(),
              Cgroup::why_unusable().empty() ? "usable" : Cgroup::why_unusable().c_str());

  // The reference's runner: a sleeper in a cgroup, frozen as between calls.
  Cgroup ref_cg("reference-1");
  const std::string ref_folder = ref_cg.folder();
  const std::string parent = ref_folder.substr(0, ref_folder.rfind('/'));
  pid_t ref = fork();
  if (ref == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (!ref_cg.enter()) _exit(127);
    setpgid(0, 0);
    for (;;) pause();
  }
  setpgid(ref, ref);
  sleep_ms(20);
  Freezer ref_freezer(std::move(ref_cg));
  std::printf("[harness] reference runner %d in %s, stop=%d\n", ref, ref_folder.c_str(), ref_freezer.stop(ref));

  // The student's runner.
  std::vector<std::string> words;
  if (!words_file.empty()) {
    std::ifstream in(words_file);
    std::string w;
    while (std::getline(in, w)) words.push_back(w);
  }
  for (; i < argc; ++i) words.push_back(argv[i]);
  std::vector<char*> av;
  for (auto& w : words) av.push_back(w.data());
  av.push_back(nullptr);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return 3;
  Cgroup cgroup("student-2");
  const std::string student_folder = cgroup.folder();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (cgroup.usable() && !cgroup.enter()) {
      std::fprintf(stderr, "cannot enter cgroup: %s\n", strerror(errno));
      _exit(127);
    }
    setpgid(0, 0);
    dup2(pipe_fds[1], 3);
    execvp(av[0], av.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(pipe_fds[1]);
  std::printf("[harness] student runner %d in %s\n", pid, student_folder.c_str());
  std::fflush(stdout);
  std::thread reader([fd = pipe_fds[0]] {
    char buf[4096];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) return;
      ticks += n;
    }
  });
  reader.detach();
  Freezer freezer(std::move(cgroup));

  // The calls: the runner runs for call_ms, then is held for 500 ms.
  for (int r = 0; r < rounds; ++r) {
    sleep_ms(call_ms);
    const Clock::time_point t = Clock::now();
    const bool stopped = freezer.stop(pid, patience);
    const double stop_ms = ms_since(t);
    const unsigned long before = ticks.load();
    sleep_ms(500);
    const unsigned long during = ticks.load() - before;
    const bool still = freezer.still_stopped();
    std::printf("[harness] round %d: stop()=%d in %.1f ms; ticks while held: %lu; still_stopped()=%d; events: %s\n", r,
                stopped, stop_ms, during, still, slurp(student_folder + "/cgroup.events").c_str());
    std::fflush(stdout);
    if (die_frozen && r == rounds - 1) {
      std::printf("[harness] dying by SIGKILL while the student is frozen\n");
      std::fflush(stdout);
      kill(getpid(), SIGKILL);
    }
    if (ref_call) {
      // The reference's call: it runs 300 ms while the student is held.
      const bool ref_still = ref_freezer.still_stopped();
      ref_freezer.resume();
      const unsigned long at = ticks.load();
      sleep_ms(300);
      const unsigned long in_ref_call = ticks.load() - at;
      const bool ref_stopped = ref_freezer.stop(ref);
      std::printf("[harness]   reference call: still_stopped before=%d, student ticks during it: %lu, stop after=%d\n",
                  ref_still, in_ref_call, ref_stopped);
    }
    freezer.resume();
    if (!stopped || !still) break;
  }

  // end_runner: continue, then (kill) the cgroup, the group, the runner; wait; Runner{}.
  std::printf("[harness] end_runner(%s)\n", end.c_str());
  const Clock::time_point t_end = Clock::now();
  freezer.resume();
  int status = 0;
  if (end == "kill") {
    freezer.kill_all(0.0);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  } else {
    for (int tries = 0; tries < 200; ++tries) {
      if (waitpid(pid, &status, WNOHANG) == pid) break;
      sleep_ms(10);
      if (tries == 199) { kill(-pid, SIGKILL); kill(pid, SIGKILL); waitpid(pid, &status, 0); }
    }
  }
  const double waited = ms_since(t_end);
  // end_runner since the round 5 fixes: whatever is left in the cgroup is killed and waited for.
  const Clock::time_point t_wait = Clock::now();
  const bool emptied = freezer.kill_all(kill_wait);
  std::printf("[harness] end_runner's kill_all(%.0f) = %d after %.1f ms\n", kill_wait, emptied, ms_since(t_wait));
  unsigned long long b0, t0, b1, t1;
  cpu_times(b0, t0);
  const Clock::time_point t_remove = Clock::now();
  freezer = Freezer{};  // runner = Runner{}: Cgroup::remove(): remove_tree (depth-first, kills, 1 s per folder)
  const double removed = ms_since(t_remove);
  cpu_times(b1, t1);
  std::printf("[harness] runner reaped after %.1f ms; Runner{} (remove_tree) took %.1f ms; "
              "cpu busy during it %.0f%%\n",
              waited, removed, t1 > t0 ? 100.0 * (b1 - b0) / (t1 - t0) : 0.0);
  // What is left: ticks after the end, the machine's CPU, cgroups of ours.
  const unsigned long before = ticks.load();
  cpu_times(b0, t0);
  sleep_ms(1000);
  cpu_times(b1, t1);
  std::printf("[harness] in the second after the end: ticks %lu, machine cpu busy %.0f%%\n", ticks.load() - before,
              t1 > t0 ? 100.0 * (b1 - b0) / (t1 - t0) : 0.0);
  std::printf("[harness] reference cgroup events: %s\n", slurp(ref_folder + "/cgroup.events").c_str());
  std::printf("[harness] reference runner alive: %s\n", kill(ref, 0) == 0 && waitpid(ref, nullptr, WNOHANG) == 0 ? "yes" : "NO");
  ref_freezer = Freezer{};
  for (const auto& f : leftovers(parent)) {
    std::printf("[harness] LEFT BEHIND: %s [%s] procs: %s\n", f.c_str(), slurp(f + "/cgroup.events").c_str(),
                slurp(f + "/cgroup.procs").c_str());
  }
  // How long until the student's cgroup (if it was left) is empty.
  if (slurp(student_folder + "/cgroup.events").find("populated 1") != std::string::npos) {
    while (slurp(student_folder + "/cgroup.events").find("populated 1") != std::string::npos && ms_since(t_end) < 60000)
      sleep_ms(10);
    std::printf("[harness] student cgroup empty %.0f ms after end_runner began\n", ms_since(t_end));
  }
  std::printf("[harness] done\n");
  std::fflush(stdout);
  close(pipe_fds[0]);  // a ticking process that escaped dies of SIGPIPE at its next tick
  return 0;
}
