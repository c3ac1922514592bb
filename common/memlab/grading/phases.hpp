/// @file phases.hpp
/// @brief Where a grading run's time goes: a diagnostic, off unless asked for.
///
/// With MEMLAB_TRACE_PHASES set, each Phase adds the time from its
/// construction to its end to its name's total, and print_phases() writes
/// every total to stderr (the grader calls it when its runners stop). Used to
/// find what a grading run spends its seconds on (docs/measurements).
#pragma once

namespace memlab::grading {

/// Adds its lifetime to @p name's total when tracing is on. @p name must outlive the program (a literal).
class Phase {
 public:
  /// Starts timing @p name's phase (nothing happens unless tracing is on).
  explicit Phase(const char* name);
  /// Adds the time since construction to the phase's total.
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  const char* name_;
  double begin_seconds_;
};

/// Adds the time from the process's start (as /proc/self/stat gives it, to 10 ms) to now
/// to the phase "before_main", if tracing is on: loading the program and its libraries.
void trace_time_before_main();

/// Prints each phase's count and total time to stderr, if tracing is on.
void print_phases();

}  // namespace memlab::grading
