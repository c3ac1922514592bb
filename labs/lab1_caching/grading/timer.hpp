/// @file timer.hpp
/// @brief Lab 1's grader, step 2: what the student's time_launches reports,
/// beside what the grader measures itself.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace lab1::checks {

/// Fails the running check unless @p ms holds one positive, finite time per
/// launch (a zero would make any speed-up pass).
void require_times(const std::vector<float>& ms, int launches);

/// Rounds at large footprints, where each launch streams from DRAM for a tenth
/// of a millisecond or more: per round, the student's launch times added up
/// over the grader's clock for the whole call, and launch 1's time over the
/// others' median (about 1 where every launch streams from DRAM). The size and
/// the number of launches change every round, so no fixed answer fits them
/// all. Fails the check if a call did not compute c, returned malformed times,
/// or took (by the grader's clock) or reported a launch in less time than the
/// GPU's memory allows: a call that launched fewer times than it was asked.
struct CallShares {
  std::vector<double> shares;           // per round
  std::vector<double> first_over_rest;  // per round
  std::string rounds;                   // each round described, for a failure's message
};
CallShares measure_call_shares(int rounds);

/// Rounds at half the L2 size, each call of time_launches made twice (once as
/// it is, once with the GPU's own times of its launches recorded): the times the
/// student's timer reports, and the GPU's times of the same launches; the GPU's
/// times of as many direct calls of the student's vector_add, which the runner
/// makes back to back behind the same flush and hold, and its own events around
/// them (the student's process's word, like theirs: where the runner cannot
/// record kernels, the yardstick); the same of the reference; all per launch.
/// And launch 1 by the student's timer after a short and after a long hold of
/// the stream, and in how many rounds the runner's calls of vector_add could
/// not all queue behind its hold. Fails the check if a call of time_launches
/// did not compute c, returned malformed times, or launched other than the
/// kernels of the direct call of the same rank.
struct TimerAtHalfL2 {
  std::size_t n = 0;
  // [launch][round]: the student's reported times, the GPU's times of the same launches (empty
  // where unrecorded), of direct calls of vector_add (empty where unrecorded), and the runner's
  // events around those calls.
  std::vector<std::vector<double>> theirs, their_kernels, their_direct, their_by_runner;
  // The same of the reference's time_launches and vector_add.
  std::vector<std::vector<double>> reference_timer, reference_kernels, reference_direct, reference_by_runner;
  int their_most_streams = 1;  // the most streams one direct call's spanned kernels ran on
  std::vector<double> first_after_hold[2];  // launch 1 after the short hold, after the long one
  int rounds_vector_add_waited = 0;         // the runner's launches could not all queue behind its hold
  int rounds_timer_waited = 0;              // the student's time_launches launched only once the hold was over
};
TimerAtHalfL2 measure_timer_at_half_l2(int rounds);

/// Step 2 at half the L2 size: measure_timer_at_half_l2(), every figure
/// recorded as a check value, and the verdict. vector_add must not wait before
/// it returns; launch 1 must not count the stream's hold; the warm launches must
/// take about what the runner's events around the same kernel take; and they
/// must show a share of the cache's gain that the reference's runner measures.
struct TimerVerdict {
  std::string measured;  // the speed-ups, for the report's "measured" column
  std::string note;      // launch by launch: the student's, the runner's around their kernel, the reference's
  std::string failure;   // empty when the timer passes
};
TimerVerdict judge_timer_at_half_l2();

}  // namespace lab1::checks
