#include "memlab/grading/speed.hpp"

#include "memlab/grading/grader.hpp"
#include "memlab/report.hpp"
#include "memlab/stats.hpp"

namespace memlab::grading {

std::string SpeedComparison::explain() const {
  return format_text("took %.2fx the reference's time (median of %zu interleaved pairs%s); the limit is %.2fx",
                     best_ratio, pairs, attempts > 1 ? ", measured twice" : "", limit);
}

SpeedComparison compare_speed(const Work& student, const Work& reference, double limit) {
  constexpr int kWarmups = 2;
  constexpr int kPairs = 21;
  constexpr int kAttempts = 2;
  SpeedComparison result;
  result.limit = limit;
  Interleaved last;
  const RerunVerdict verdict = judge_with_rerun(limit, kAttempts, [&] {
    last = timer().compare(student, reference, {kWarmups, kPairs, Cache::cold});
    return last.median_ratio;
  });
  result.best_ratio = verdict.best();
  result.attempts = static_cast<int>(verdict.attempts.size());
  result.student_ms = median(last.a_ms);
  result.reference_ms = median(last.b_ms);
  result.ratio = last.median_ratio;
  result.pairs = last.a_ms.size();
  return result;
}

double median_milliseconds(const Work& work) { return median(timer().samples_ms(work, {2, 15, Cache::cold})); }

void record_bandwidth(const SpeedComparison& result, double bytes, const std::string& prefix) {
  const double copy = ceilings().copy_gbps;
  const double student_gbps = gigabytes_per_second(bytes, result.student_ms);
  const double reference_gbps = gigabytes_per_second(bytes, result.reference_ms);
  value(prefix + "student_gbps", student_gbps);
  value(prefix + "reference_gbps", reference_gbps);
  value(prefix + "reference_share_of_copy", reference_gbps / copy);
  value(prefix + "copy_gbps", copy);
  value(prefix + "time_ratio", result.ratio);
  value(prefix + "attempts", result.attempts);
}

std::string bandwidth_text(double bytes, double milliseconds) {
  const double gbps = gigabytes_per_second(bytes, milliseconds);
  return format_text("%.0f GB/s (%.0f%% of copy)", gbps, 100 * gbps / ceilings().copy_gbps);
}

}  // namespace memlab::grading
