/// @file speed.hpp
/// @brief The timing check every lab grader makes: the student's work against
/// the reference's, in the same process, on the same data.
#pragma once

#include "memlab/timing.cuh"

#include <cstddef>
#include <string>

namespace memlab::grading {

/// Outcome of compare_speed().
struct SpeedComparison {
  double limit = 0.0;         ///< the largest student/reference time ratio that passes
  double best_ratio = 0.0;    ///< the smallest ratio over the attempts
  double student_ms = 0.0;    ///< median time of the student's work, last attempt
  double reference_ms = 0.0;  ///< median time of the reference's work, last attempt
  double ratio = 0.0;         ///< median of per-pair ratios, last attempt
  std::size_t pairs = 0;      ///< interleaved pairs per attempt
  int attempts = 0;           ///< 1, or 2 when the first attempt was over the limit

  /// Some attempt measured a ratio within the limit.
  bool passed() const { return best_ratio <= limit; }
  /// "took 1.40x the reference's time (median of 21 interleaved pairs, measured twice); the limit is 1.25x"
  std::string explain() const;
};

/// Times @p student against @p reference on the grader's stream: two warm-ups,
/// then 21 interleaved pairs with L2 flushed before every run, judged by the
/// median of the per-pair ratios; measured again once before failing
/// (judge_with_rerun), so one disturbed measurement does not fail a student.
SpeedComparison compare_speed(const Work& student, const Work& reference, double limit);

/// Median milliseconds of @p work alone on the grader's stream (two warm-ups,
/// then 15 runs, L2 flushed before each): for figures a check reports beside
/// its verdict, such as a library's time or the student's earlier step.
double median_milliseconds(const Work& work);

/// For work that moves @p bytes: records the named values student_gbps,
/// reference_gbps, reference_share_of_copy, copy_gbps, time_ratio and attempts
/// (each name preceded by @p prefix) in the running check.
void record_bandwidth(const SpeedComparison& result, double bytes, const std::string& prefix = "");

/// @p bytes moved in @p milliseconds, for people: "3520 GB/s (88% of copy)",
/// the share taken of the copy bandwidth measured when the grader started.
std::string bandwidth_text(double bytes, double milliseconds);

}  // namespace memlab::grading
