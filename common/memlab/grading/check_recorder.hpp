/// @file check_recorder.hpp
/// @brief Turns the test framework's events into the lab's report rows.
///
/// A lab grader is a set of Catch2 test cases, one per check, each tagged with
/// its step and a short id: `TEST_CASE("vector_add is correct for any n",
/// "[step1][correct]")`. The grading main forwards Catch2's events (a check
/// starts, an assertion fails, a check ends) to a CheckRecorder; the check
/// itself adds what it measured and a hint. The recorder knows nothing of
/// Catch2, so it is tested on its own.
#pragma once

#include "memlab/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace memlab::grading {

/// The step number of a check from its tags ("step3" gives 3), or 0 if none.
int step_of(const std::vector<std::string>& tags);

/// @name Tags that say how a check runs rather than name it
/// The instructors' grader's memory-checking pass (`--sanitize`) leaves both
/// kinds out: a sanitizer's slowdown makes timings meaningless, and the buggy
/// kernels break the rules on purpose.
/// @{
inline constexpr const char* kTimingTag = "timing";               ///< the check times kernels
inline constexpr const char* kBuggyKernelsTag = "buggy_kernels";  ///< the check runs deliberately wrong kernels
/// @}

/// Collects CheckResult rows as checks run.
class CheckRecorder {
 public:
  /// A check named @p title with @p tags starts. Its id is "stepN." followed by
  /// its first other tag, leaving out kTimingTag and kBuggyKernelsTag.
  void begin(const std::string& title, const std::vector<std::string>& tags);
  /// An assertion of the current check failed; the first failure's text is kept.
  void assertion_failed(const std::string& text);
  /// The current check ended; @p passed is the framework's verdict.
  void end(bool passed, double seconds);

  /// The check that is running (valid between begin() and end()).
  CheckResult& current();
  /// Marks the current check as blocked by @p step (reported as BLOCKED, not FAIL).
  void block(int step);
  /// True if @p step has run at least one check and every check of it passed,
  /// speed comparisons whose results were right aside (CheckResult::speed_only).
  bool step_passed(int step) const;
  /// True between begin() and end().
  bool running() const { return running_; }

  /// Completed checks, in the order they ran.
  const std::vector<CheckResult>& results() const { return results_; }

 private:
  std::vector<CheckResult> results_;
  CheckResult current_;
  bool running_ = false;
  bool have_failure_text_ = false;
  std::optional<int> blocked_by_;
};

}  // namespace memlab::grading
