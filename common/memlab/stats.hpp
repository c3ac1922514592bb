/// @file stats.hpp
/// @brief Robust statistics for GPU timings: medians, percentiles, per-pair ratios
/// and the re-run rule that keeps one noisy measurement from failing a student.
///
/// GPU timings are skewed: most samples sit near the true time, a few are much
/// slower (a clock ramping up, another process, an interrupt). Medians and
/// percentiles ignore those few; means do not. Comparing two kernels by the
/// median of per-pair ratios, each pair measured back to back, cancels drift
/// that affects both members of a pair.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace memlab {

/// Summary of a set of samples (all of one unit, e.g. milliseconds).
struct Summary {
  std::size_t count = 0;  ///< number of samples
  double median = 0.0;    ///< 50th percentile
  double min = 0.0;       ///< smallest sample
  double max = 0.0;       ///< largest sample
  double p10 = 0.0;       ///< 10th percentile
  double p90 = 0.0;       ///< 90th percentile
};

/// The @p p-th percentile (0..100) of @p values, interpolating linearly between
/// the two nearest ranks (numpy's default). Throws std::invalid_argument for an
/// empty set, a non-finite value or @p p outside 0..100.
double percentile(std::vector<double> values, double p);

/// The median (50th percentile) of @p values; throws like percentile().
double median(std::vector<double> values);

/// Count, median, min, max, p10 and p90 of @p samples; throws like percentile().
Summary summarize(const std::vector<double>& samples);

/// Element-wise ratios numerators[i] / denominators[i]. Throws
/// std::invalid_argument if the sizes differ or a denominator is not positive.
std::vector<double> pair_ratios(const std::vector<double>& numerators,
                                const std::vector<double>& denominators);

/// Median of pair_ratios(numerators, denominators).
double median_ratio(const std::vector<double>& numerators, const std::vector<double>& denominators);

/// How far apart two sets of series are at worst: for each i, the ratio of
/// median(first[i]) to median(second[i]), folded to >= 1 (a ratio r and 1/r
/// count alike); returns the largest, or 1 when there are no series. Used to
/// compare two timers launch by launch. Throws std::invalid_argument if the
/// counts of series differ; median() throws on an empty series.
double worst_median_ratio(const std::vector<std::vector<double>>& first,
                          const std::vector<std::vector<double>>& second);

/// Outcome of judge_with_rerun().
struct RerunVerdict {
  bool passed = false;          ///< some attempt was within the limit
  std::vector<double> attempts; ///< the value each attempt measured, in order
  /// The smallest value measured (the attempt that decided a pass).
  double best() const;
};

/// The re-run rule for timing checks: calls @p measure (which returns a value
/// where smaller is better, such as a student/reference time ratio) until one
/// value is at most @p limit or @p max_attempts have been made. A check fails
/// only when every attempt exceeds the limit, so a single disturbed measurement
/// does not fail a correct solution, while a slow one fails every attempt.
RerunVerdict judge_with_rerun(double limit, int max_attempts, const std::function<double()>& measure);

}  // namespace memlab
