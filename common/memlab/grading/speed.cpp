#include "memlab/grading/speed.hpp"

#include "memlab/grading/context.hpp"
#include "memlab/grading/grader.hpp"
#include "memlab/grading/phases.hpp"
#include "memlab/report.hpp"
#include "memlab/stats.hpp"

#include "memlab/device_random.cuh"

#include <algorithm>
#include <limits>
#include <random>
#include <stdexcept>

namespace memlab::grading {

namespace {
// The base taken off the timed calls and the spread of the samples, for make reliability.
void record_clock_statistics(const std::vector<double>& student_ms, const std::vector<double>& reference_ms) {
  value("base_us", 1e3 * remote::base_ms());
  if (student_ms.empty()) return;
  const std::vector<double> ratios = pair_ratios(student_ms, reference_ms);
  value("pair_ratio_p10", percentile(ratios, 10));
  value("pair_ratio_p90", percentile(ratios, 90));
  value("student_ms_p10", percentile(student_ms, 10));
  value("student_ms_p90", percentile(student_ms, 90));
  value("reference_ms_p10", percentile(reference_ms, 10));
  value("reference_ms_p90", percentile(reference_ms, 90));
}

}  // namespace

std::string SpeedComparison::explain() const {
  if (!wrong_run.empty()) return "gave a wrong result in a timed run: " + wrong_run;
  if (reference_slowed()) {
    return format_text("the reference took %.2fx its time alone (%.4f ms against %.4f ms) while the student's code was "
                       "loaded, in two measurements with a new process for the student's code each time: GPU work "
                       "the student's code left queued ran beside it. The measurement is invalid.",
                       reference_ms / reference_alone_ms, reference_ms, reference_alone_ms);
  }
  if (below_floor()) {
    return format_text("measured %.4f ms, far less than the %.4f ms this GPU needs at its peak for the work the "
                       "header asks for: the measurement is invalid (work skipped, or done outside the timed call?)",
                       student_ms, floor_ms);
  }
  return format_text("took %.2fx the reference's time (median of %zu interleaved pairs%s); the limit is %.2fx",
                     best_ratio, pairs, attempts > 1 ? ", measured twice" : "", limit);
}

namespace {
// A run's wrong result: the student's fails the check, the reference's is the grader's own fault.
struct WrongRun : std::runtime_error {
  using std::runtime_error::runtime_error;
};
}  // namespace

SpeedComparison compare_speed(const CheckedWork& student, const CheckedWork& reference, double limit,
                              double floor_ms) {
  constexpr int kWarmups = 2;
  constexpr int kAlone = 5;
  constexpr int kPairs = 21;
  constexpr int kAttempts = 2;
  // A comparison already this far over the limit after a few pairs fails
  // whatever the rest would say (it earns no points past 3x): stop there, so a
  // hopelessly slow kernel does not spend the run's time limit on timing.
  constexpr int kPairsBeforeGivingUp = 3;
  constexpr double kHopeless = 4.0;
  const auto sample = [](const CheckedWork& side) {
    if (side.prepare) {
      const Phase phase("speed_prepare");
      side.prepare();
    }
    const double ms = timer().time_ms(side.work, Cache::cold);
    if (side.verify) {
      const Phase phase("speed_verify");
      const std::string wrong = side.verify();
      if (!wrong.empty()) throw WrongRun(wrong);
    }
    return ms;
  };
  SpeedComparison result;
  result.limit = limit;
  result.floor_ms = floor_ms;
  std::vector<double> student_ms, reference_ms;
  bool hopeless = false;
  // One attempt: kPairs interleaved pairs, the ratio of their median.
  const auto time_pairs = [&] {
    if (hopeless) return std::numeric_limits<double>::infinity();
    student_ms.clear();
    reference_ms.clear();
    for (int i = 0; i < kPairs; ++i) {
      // Alternating who goes first, so a drift of the machine affects both alike.
      if (i % 2 == 0) {
        student_ms.push_back(sample(student));
        reference_ms.push_back(sample(reference));
      } else {
        reference_ms.push_back(sample(reference));
        student_ms.push_back(sample(student));
      }
      if (i + 1 >= kPairsBeforeGivingUp && median_ratio(student_ms, reference_ms) > kHopeless * limit) {
        hopeless = true;
        break;
      }
    }
    // A second attempt cannot rescue a hopeless one: say so with a value over any limit.
    return hopeless ? std::numeric_limits<double>::infinity() : median_ratio(student_ms, reference_ms);
  };
  // One measurement. The reference alone first, with no runner of the
  // student's alive: GPU work its code left queued (behind a wait on a value
  // the grader writes, say) dies with its process. Timed beside the student's
  // runner, the reference must not be far slower than this. Then the pairs,
  // measured again once before failing (judge_with_rerun).
  const auto measure = [&] {
    remote::kill_runner(remote::Side::student);
    std::vector<double> alone_ms;
    for (int i = 0; i < kAlone; ++i) alone_ms.push_back(sample(reference));
    result.reference_alone_ms = median(alone_ms);
    for (int i = 0; i < kWarmups; ++i) {
      sample(student);
      sample(reference);
    }
    hopeless = false;
    const RerunVerdict verdict = judge_with_rerun(limit, kAttempts, time_pairs);
    result.best_ratio = hopeless ? median_ratio(student_ms, reference_ms) : verdict.best();
    result.attempts = static_cast<int>(verdict.attempts.size());
    result.reference_ms = median(reference_ms);
  };
  try {
    // A reference far slower beside the student's runner than alone is
    // refused only if a second measurement, from a new runner, shows it again:
    // a fair student must not lose the check to one disturbed measurement.
    measure();
    int measurements = 1;
    if (result.reference_slowed()) {
      measure();
      measurements = 2;
    }
    value("measurements", measurements);
    record_clock_statistics(student_ms, reference_ms);
  } catch (const WrongRun& wrong) {
    result.wrong_run = wrong.what();
    result.best_ratio = 0.0;
  }
  if (!student_ms.empty()) {
    result.student_ms = median(student_ms);
    result.reference_ms = median(reference_ms);
    result.ratio = median_ratio(student_ms, reference_ms);
    result.pairs = student_ms.size();
  }
  // No ratio is scored from a wrong run or an invalid measurement.
  if (!result.wrong_run.empty() || result.below_floor() || result.reference_slowed()) result.ratio = 0.0;
  value("reference_alone_ms", result.reference_alone_ms);
  if (result.wrong_run.empty() && !result.below_floor()) recorder().current().speed_only = true;
  return result;
}

std::uint64_t unpredictable_seed() {
  static std::random_device source;
  return (static_cast<std::uint64_t>(source()) << 32) ^ source();
}

SpeedComparison compare_speed(const Work& student, const Work& reference, double limit) {
  return compare_speed(CheckedWork{{}, student, {}}, CheckedWork{{}, reference, {}}, limit);
}

double memory_floor_ms(double bytes) {
  const double gbps = device().theoretical_gbps;
  return gbps > 0 ? bytes / (gbps * 1e9) * 1e3 : 0.0;
}

double fma_ceiling_gflops(bool fp64) {
  const double now = fp64 ? measure_fp64_gflops(device(), stream()) : measure_fp32_gflops(device(), stream());
  return fp64 ? now : std::max(now, ceilings().fp32_gflops);
}

double arithmetic_floor_ms(double operations, double ceiling_gflops) {
  return ceiling_gflops > 0 ? operations / (ceiling_gflops * 1e9) * 1e3 : 0.0;
}

std::uint32_t poison(void* data, std::size_t bytes) {
  static std::mt19937 random{static_cast<std::uint32_t>(unpredictable_seed())};
  // A finite float near 2^100 with a random sign and mantissa: no kernel of the
  // labs computes it by chance, and unlike a NaN it does not survive arithmetic
  // unchanged (beta * y past the end of y changes it).
  const std::uint32_t pattern = (static_cast<std::uint32_t>(random()) & 0x807FFFFFu) | 0x71800000u;
  fill_words(data, bytes / 4, pattern, stream());
  return pattern;
}

std::optional<std::size_t> first_changed(const void* data, std::size_t bytes, std::uint32_t pattern) {
  std::vector<std::uint32_t> words(bytes / 4);
  MEMLAB_CHECK(cudaMemcpyAsync(words.data(), data, words.size() * 4, cudaMemcpyDeviceToHost, stream()));
  MEMLAB_CHECK(cudaStreamSynchronize(stream()));
  const auto changed = std::find_if(words.begin(), words.end(), [pattern](std::uint32_t word) { return word != pattern; });
  if (changed == words.end()) return std::nullopt;
  return static_cast<std::size_t>(changed - words.begin());
}

double median_milliseconds(const Work& work) { return median(timer().samples_ms(work, {2, 15, Cache::cold})); }

void record_bandwidth(const SpeedComparison& result, double bytes, const std::string& prefix) {
  const double peak = ceilings().peak_gbps();
  const double student_gbps = gigabytes_per_second(bytes, result.student_ms);
  const double reference_gbps = gigabytes_per_second(bytes, result.reference_ms);
  value(prefix + "student_gbps", student_gbps);
  value(prefix + "reference_gbps", reference_gbps);
  value(prefix + "reference_share_of_peak", reference_gbps / peak);
  value(prefix + "peak_gbps", peak);
  value(prefix + "time_ratio", result.ratio);
  value(prefix + "attempts", result.attempts);
}

void record_arithmetic(const SpeedComparison& result, double flops, const std::string& prefix) {
  const double student_gflops = gigaflops_per_second(flops, result.student_ms);
  const double reference_gflops = gigaflops_per_second(flops, result.reference_ms);
  value(prefix + "student_gflops", student_gflops);
  value(prefix + "reference_gflops", reference_gflops);
  value(prefix + "time_ratio", result.ratio);
  value(prefix + "attempts", result.attempts);
  measured(format_text("%.0f GFLOP/s", student_gflops), format_text("%.0f GFLOP/s", reference_gflops), result.ratio);
}

std::string bandwidth_text(double bytes, double milliseconds) {
  const double gbps = gigabytes_per_second(bytes, milliseconds);
  return format_text("%.0f GB/s (%.0f%% of peak)", gbps, 100 * gbps / ceilings().peak_gbps());
}

}  // namespace memlab::grading
