/// @file freezer.hpp
/// @brief Stopping a process tree between calls, and knowing that it stayed stopped.
///
/// The grader stops every process of a runner between calls (remote.cu), so
/// that no thread of the lab's code can watch the grader write the next inputs
/// and compute ahead, or load the GPU while the other side is timed. A stop
/// can be undone only by a SIGCONT, which a process can arrange for itself (a
/// timer, a helper process); still_stopped() tells whether anything stopped
/// has run since, from the threads' context-switch counts, which move
/// whenever a thread runs at all. Plain POSIX and /proc: no GPU involved.
///
/// Signals are the fallback. Where the grader may make cgroups, the runner
/// lives in a cgroup of its own (cgroup.hpp) and the kernel's freezer holds
/// it: no signal undoes that, and nothing started inside escapes it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "memlab/grading/cgroup.hpp"

namespace memlab::grading {

/// A thread of a stopped process as /proc showed it (freezer.cpp).
struct FrozenThread {
  pid_t tid;               ///< the thread's id
  char state;              ///< /proc's state letter: 'T' stopped, 'Z' ended, ...
  std::uint64_t switches;  ///< times it was switched off a CPU, voluntarily or not
};

/// Stops a process and every descendant, every thread of each.
class Freezer {
 public:
  Freezer() = default;
  /// Holds what is in @p cgroup by its freezer; signals if it is not usable.
  explicit Freezer(Cgroup cgroup) : cgroup_(std::move(cgroup)) {}
  /// Stops @p root and its descendants (read from /proc, again until every
  /// process and thread is seen stopped, so processes that come and go are
  /// met too). Returns false if they were not all stopped within
  /// @p patience_seconds (what was stopped stays stopped).
  bool stop(pid_t root, double patience_seconds = 1.0);
  /// True if nothing stop() stopped has run since: every thread still stopped,
  /// their context switches unchanged. True when nothing is stopped.
  bool still_stopped() const;
  /// Continues everything stop() stopped.
  void resume();
  /// True between stop() and resume().
  bool holding() const { return held_; }
  /// Ends every process in the runner's cgroup, and waits until they are gone
  /// (false: there is no cgroup, or they were not gone within @p patience_seconds).
  bool kill_all(double patience_seconds) { return cgroup_.usable() && cgroup_.kill_all(patience_seconds); }
  /// True if the runner is held by a cgroup, not by signals.
  bool has_cgroup() const { return cgroup_.usable(); }

 private:
  Cgroup cgroup_;
  bool held_ = false;
  pid_t root_ = -1;
  std::vector<pid_t> stopped_;
  std::vector<FrozenThread> frozen_;  // by tid, as stop() left them
};

}  // namespace memlab::grading
