/// @file speed.hpp
/// @brief The timing check every lab grader makes: the student's work against
/// the reference's, in the same process, on the same data.
#pragma once

#include "memlab/timing.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace memlab::grading {

/// The most a student's kernel may take, in times the reference's time, in
/// every timed check of every lab (the median of interleaved pairs, measured
/// twice before it fails). The points tables' full_at is checked against it
/// (grader.contract test); each lab's grader says why it suits its kernels.
inline constexpr double kSpeedLimit = 1.25;

/// How short of a run's true time the grader's clock can read a fair run: a
/// timed call is its round trip less the median round trip of an empty call,
/// and on the H100 that read the lab 2 reference's row sums at 0.3192-0.3246 ms
/// where events time the kernel at 0.355 ms (docs/measurements/trusted-grading.md,
/// session 6): 0.90 of the event time, and 0.996 of the DRAM floor. A floor is
/// enforced at this fraction of the physical least time, so a fair run never
/// meets it and work that was not done (a result copied from an earlier call,
/// an algebraic shortcut) still does, by far.
constexpr double kClockShortfall = 0.75;

/// Outcome of compare_speed().
struct SpeedComparison {
  double limit = 0.0;         ///< the largest student/reference time ratio that passes
  double best_ratio = 0.0;    ///< the smallest ratio over the attempts
  double student_ms = 0.0;    ///< median time of the student's work, last attempt
  double reference_ms = 0.0;  ///< median time of the reference's work, last attempt
  double ratio = 0.0;         ///< median of per-pair ratios, last attempt
  std::size_t pairs = 0;      ///< interleaved pairs per attempt
  int attempts = 0;           ///< 1, or 2 when the first attempt was over the limit
  double floor_ms = 0.0;      ///< the least time the work can take on this GPU (0: not known)
  std::string wrong_run;      ///< what a verified timed run got wrong ("": every run was right)
  double reference_alone_ms = 0.0;  ///< median time of the reference's work with no student runner alive

  /// Every timed run was right, the time is physically possible, the reference
  /// was not slowed beside the student's runner, and some attempt measured a
  /// ratio within the limit.
  bool passed() const { return wrong_run.empty() && !below_floor() && !reference_slowed() && best_ratio <= limit; }
  /// The reference took far longer in the pairs than alone: work of the
  /// student's runner ran beside it (queued on the GPU before the student's
  /// runner was stopped, say). Far beyond the noise of a fair comparison, and
  /// compare_speed() measures once more, from a new student runner, before it
  /// lets this stand (one such false alarm in 75 runs of the reference, H100).
  bool reference_slowed() const { return reference_alone_ms > 0 && reference_ms > 1.5 * reference_alone_ms; }
  /// The student's time is below what this GPU can do, by more than the
  /// grader's clock errs: the measurement is invalid (kClockShortfall).
  bool below_floor() const { return floor_ms > 0 && student_ms < kClockShortfall * floor_ms; }
  /// "took 1.40x the reference's time (median of 21 interleaved pairs, measured twice); the limit is 1.25x"
  std::string explain() const;
};

/// Times @p student against @p reference on the grader's stream: two warm-ups,
/// then 21 interleaved pairs with L2 flushed before every run, judged by the
/// median of the per-pair ratios; measured again once before failing
/// (judge_with_rerun), so one disturbed measurement does not fail a student.
SpeedComparison compare_speed(const Work& student, const Work& reference, double limit);

/// A timed run that is checked: prepare() runs before it, untimed (fresh
/// inputs, outputs poisoned with a new value), and verify() after it, untimed,
/// returning what the run got wrong ("" if nothing). Every timed run of the
/// student's code is verified, so work skipped or left unfinished on a
/// repeated call cannot pass as fast work.
struct CheckedWork {
  std::function<void()> prepare;         ///< before each run, untimed
  Work work;                             ///< the timed work
  std::function<std::string()> verify;   ///< after it, untimed
};

/// compare_speed() with every run prepared and verified, refusing a student
/// time below @p floor_ms (bytes over the theoretical bandwidth, say) as an
/// invalid measurement.
SpeedComparison compare_speed(const CheckedWork& student, const CheckedWork& reference, double limit,
                              double floor_ms = 0.0);

/// A seed no code of the student's can know in advance (from the operating
/// system's random source), for a timed run's inputs and for the places its
/// output is sampled: no result can be prepared before the run, and no sampled
/// element guessed. Correctness checks keep using seed(), which repeats.
std::uint64_t unpredictable_seed();

/// Where a timed run's output of @p count elements is sampled, in chunks of
/// @p chunk elements: the first and the last chunk, and @p chunks - 2 more at
/// places drawn from @p places when the run is over.
inline std::vector<std::size_t> sample_starts(std::size_t count, std::size_t chunk, int chunks,
                                              std::mt19937_64& places) {
  std::vector<std::size_t> starts = {0, count - std::min(count, chunk)};
  for (int i = 2; i < chunks; ++i) starts.push_back(places() % count);
  return starts;
}

/// The least milliseconds moving @p bytes through DRAM can take on this GPU:
/// the bytes at the bandwidth its memory clock and bus width allow.
double memory_floor_ms(double bytes);

/// The least milliseconds @p operations floating-point operations can take at
/// @p ceiling_gflops, the fused multiply-add rate measured on this GPU
/// (MeasuredCeilings::fp32_gflops, measure_fp64_gflops): a compute-bound
/// kernel's floor, which no shortcut past the promised arithmetic stays above.
double arithmetic_floor_ms(double operations, double ceiling_gflops);

/// The FMA rate of float (@p fp64 false) or double on this GPU, for an
/// arithmetic floor: the larger of the rate measured when the grader started
/// (double's is not) and one measured now. A rate measured before the clocks
/// rose would set the floor too high and fail a fair kernel.
double fma_ceiling_gflops(bool fp64);

/// Fills @p bytes of device memory at @p data (a multiple of 4) with a 32-bit
/// pattern chosen at random for this call, and returns the pattern: poison
/// that a stray write cannot restore by knowing it in advance.
std::uint32_t poison(void* data, std::size_t bytes);

/// The first 32-bit word of @p bytes at @p data that no longer holds @p pattern, if any.
std::optional<std::size_t> first_changed(const void* data, std::size_t bytes, std::uint32_t pattern);

/// True if every 32-bit word of @p bytes at @p data still holds @p pattern.
inline bool still_poisoned(const void* data, std::size_t bytes, std::uint32_t pattern) {
  return !first_changed(data, bytes, pattern);
}

/// Median milliseconds of @p work alone on the grader's stream (two warm-ups,
/// then 15 runs, L2 flushed before each): for figures a check reports beside
/// its verdict, such as a library's time or the student's earlier step.
double median_milliseconds(const Work& work);

/// For work that moves @p bytes: records the named values student_gbps,
/// reference_gbps, reference_share_of_peak, peak_gbps, time_ratio and attempts
/// (each name preceded by @p prefix) in the running check.
void record_bandwidth(const SpeedComparison& result, double bytes, const std::string& prefix = "");

/// For work of @p flops floating-point operations: records the named values
/// student_gflops, reference_gflops, time_ratio and attempts (each preceded by
/// @p prefix) in the running check, and both GFLOP/s as what was measured.
void record_arithmetic(const SpeedComparison& result, double flops, const std::string& prefix = "");

/// @p bytes moved in @p milliseconds, for people: "3520 GB/s (88% of peak)",
/// the share taken of MeasuredCeilings::peak_gbps(), measured when the grader started.
std::string bandwidth_text(double bytes, double milliseconds);

}  // namespace memlab::grading
