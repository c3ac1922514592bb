// Freezer (freezer.hpp): the processes and threads of a tree, read from /proc.
#include "memlab/grading/freezer.hpp"

#include <dirent.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

namespace memlab::grading {

namespace {

// Stopped, or ended and waiting to be reaped: it cannot run again either way.
bool cannot_run(char state) { return state == 'T' || state == 't' || state == 'Z' || state == 'X'; }

struct Process {
  pid_t pid;
  bool stopped;  // its first thread, as /proc/PID/stat says
};

// @p root and every descendant, read from /proc.
std::vector<Process> process_tree(pid_t root) {
  std::map<pid_t, std::vector<Process>> children;
  bool root_stopped = false;
  if (DIR* proc = ::opendir("/proc")) {
    while (const dirent* entry = ::readdir(proc)) {
      const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
      if (pid <= 0) continue;
      char path[64];
      std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
      FILE* stat = std::fopen(path, "r");
      if (stat == nullptr) continue;
      char line[512] = {};
      const std::size_t read = std::fread(line, 1, sizeof line - 1, stat);
      std::fclose(stat);
      line[read] = '\0';
      // "pid (name) state ppid ...": the name may hold spaces and parentheses, so read after the last ')'.
      const char* after_name = std::strrchr(line, ')');
      char state = 0;
      int parent = 0;
      if (after_name != nullptr && std::sscanf(after_name + 1, " %c %d", &state, &parent) == 2) {
        children[parent].push_back({pid, cannot_run(state)});
        if (pid == root) root_stopped = cannot_run(state);
      }
    }
    ::closedir(proc);
  }
  std::vector<Process> tree = {{root, root_stopped}};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    for (const Process& child : children[tree[i].pid]) tree.push_back(child);
  }
  return tree;
}

// The threads of @p pids: whether every one is stopped, and how many times
// they have been switched off a CPU in all. A thread that runs, for however
// short a time, is switched in and out, so the sum moves.
struct Threads {
  bool all_stopped = true;
  std::uint64_t switches = 0;
};

Threads threads_of(const std::vector<pid_t>& pids) {
  Threads threads;
  for (pid_t pid : pids) {
    char folder[64];
    std::snprintf(folder, sizeof folder, "/proc/%d/task", pid);
    DIR* tasks = ::opendir(folder);
    if (tasks == nullptr) continue;  // reaped
    while (const dirent* entry = ::readdir(tasks)) {
      if (entry->d_name[0] == '.') continue;
      char path[sizeof folder + sizeof entry->d_name + 8];
      std::snprintf(path, sizeof path, "%s/%s/status", folder, entry->d_name);
      FILE* status = std::fopen(path, "r");
      if (status == nullptr) continue;
      char line[256];
      while (std::fgets(line, sizeof line, status) != nullptr) {
        char state = 0;
        unsigned long long count = 0;
        if (std::sscanf(line, "State: %c", &state) == 1) {
          threads.all_stopped = threads.all_stopped && cannot_run(state);
        } else if (std::sscanf(line, "voluntary_ctxt_switches: %llu", &count) == 1 ||
                   std::sscanf(line, "nonvoluntary_ctxt_switches: %llu", &count) == 1) {
          threads.switches += count;
        }
      }
      std::fclose(status);
    }
    ::closedir(tasks);
  }
  return threads;
}

}  // namespace

bool Freezer::stop(pid_t root, double patience_seconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point begin = Clock::now();
  for (int round = 0; std::chrono::duration<double>(Clock::now() - begin).count() < patience_seconds; ++round) {
    bool all_stopped = true;
    for (const Process& process : process_tree(root)) {
      if (std::find(stopped_.begin(), stopped_.end(), process.pid) == stopped_.end()) stopped_.push_back(process.pid);
      if (!process.stopped) {
        ::kill(process.pid, SIGSTOP);
        all_stopped = false;
      }
    }
    if (all_stopped) {
      // A process counts as stopped once its first thread is; the others stop as they notice.
      const Threads threads = threads_of(stopped_);
      if (threads.all_stopped) {
        switches_ = threads.switches;
        return true;
      }
    }
    // A stop is delivered shortly after kill() returns: look again a moment later.
    std::this_thread::sleep_for(std::chrono::microseconds(round < 5 ? 20 : 200));
  }
  return false;
}

bool Freezer::still_stopped() const {
  if (stopped_.empty()) return true;
  const Threads now = threads_of(stopped_);
  return now.all_stopped && now.switches == switches_;
}

void Freezer::resume() {
  for (pid_t pid : stopped_) ::kill(pid, SIGCONT);
  stopped_.clear();
}

}  // namespace memlab::grading
