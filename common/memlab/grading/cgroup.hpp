/// @file cgroup.hpp
/// @brief A cgroup v2 of its own for each runner: the kernel stops it, says it
/// stayed stopped, and ends everything in it.
///
/// Signals cannot hold a process tree that wants to run: a stopped process
/// can be continued by a SIGCONT it arranged itself, and a chain of
/// short-lived processes can always have one member between two reads of
/// /proc. A cgroup's freezer (cgroup.freeze) is not undone by any signal, every
/// process started inside stays inside, and cgroup.events says "frozen 1" only
/// once every thread is off its CPU; cgroup.kill ends every process in it,
/// those that left the runner's process group included. The grader makes one
/// below its own cgroup where it may (root, or a delegated subtree such as
/// `systemd-run --user --scope -p Delegate=yes`); elsewhere the Freezer falls
/// back to signals (freezer.hpp). Linux 5.14 or later (cgroup.kill).
#pragma once

#include <string>

namespace memlab::grading {

/// One runner's cgroup: made on construction, emptied and removed on destruction.
class Cgroup {
 public:
  /// No cgroup: usable() is false, and the Freezer uses signals.
  Cgroup() = default;
  /// A new, empty cgroup below the grader's own named @p name (one left by an
  /// earlier process of this pid is replaced); one that usable() says false of
  /// if this process may not make one here, or this one could not be made
  /// (said on stderr).
  explicit Cgroup(const std::string& name);
  /// Takes @p other's cgroup; @p other is left without one.
  Cgroup(Cgroup&& other) noexcept;
  /// Removes this cgroup (ending what is inside) and takes @p other's.
  Cgroup& operator=(Cgroup&& other) noexcept;
  Cgroup(const Cgroup&) = delete;
  Cgroup& operator=(const Cgroup&) = delete;
  /// Ends what is still inside and removes the cgroup.
  ~Cgroup();

  /// True if there is a cgroup to hold processes (the grader could make one).
  bool usable() const { return !folder_.empty(); }
  /// Its folder in the cgroup file system ("" when unusable).
  const std::string& folder() const { return folder_; }
  /// Moves the calling process into the cgroup. Only open, write and close:
  /// safe between fork and exec. False if the kernel refused.
  bool enter() const noexcept;
  /// Freezes every thread inside; false if they were not all frozen within
  /// @p patience_seconds (a thread inside a long system call).
  bool freeze(double patience_seconds);
  /// True while the cgroup is frozen and every thread in it is.
  bool frozen() const;
  /// Lets every thread inside run again.
  void thaw();
  /// Kills every process inside and waits up to @p patience_seconds until none is left.
  bool kill_all(double patience_seconds);

  /// Why no cgroup can be made here, or "" if one can (checked once).
  static const std::string& why_unusable();

 private:
  void remove();

  std::string folder_;  // the cgroup's folder in the cgroup file system, "" when unusable
  std::string procs_;   // folder_ + "/cgroup.procs", ready for enter() after a fork
};

}  // namespace memlab::grading
