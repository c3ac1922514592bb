// Lab 1's step 2 measurements (timer.hpp).
#include "timer.hpp"

#include "arrays.hpp"
#include "sweep.hpp"

#include <memlab/grading/catch2.hpp>
#include <memlab/grading/machine_code.hpp>
#include <memlab/grading/remote.hpp>
#include <memlab/report.hpp>
#include <memlab/stats.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <random>
#include <sstream>

namespace lab1::checks {

namespace remote = memlab::grading::remote;
using memlab::format_text;

namespace {

// Rounds at L2/2 (medians over them are judged).
constexpr int kCacheRounds = 15;
// What the student's timer adds to the GPU's own times of its warm launches
// (median of launches 2-5) may exceed what the reference's timer adds to its
// own by at most this. On an H100 a timer of CUDA events adds 2.1-2.5 us to
// kernels of 4.5 us (runs 111 and 112, 50 runs of the reference each); fair
// timers ranged from 0.66 us under the reference's to 0.64 us over it (events
// on side streams), a timer that waits after every launch 4.6-5.4 us over
// (runs 111-113). Host clocks (2 us over) fail by the hold, or by waiting for
// it (below).
constexpr double kMostExcessOverReferenceMs = 0.002;
// And more by what joining costs, measured (judge_timer_at_half_l2()), up to this for each stream
// beyond the first that a direct call's kernels ran on: a vector_add forked to streams of its own
// and joined back (events on the way out and back) costs the GPU time outside its kernels, which a
// fair timer's events count. Four streams: 3.1 us over the reference's timer (red team 29's file
// 01, run 133), where a timer that waits between launches is 4.6-5.4 us over on one stream.
constexpr double kJoinAllowanceMs = 0.001;
// The kernels of each launch of time_launches (its recorded call) must run as long as the same
// launch of direct calls of vector_add, medians over the rounds, within the larger of these: the
// same kernels, flushed and held alike. A launch at another n, or a kernel slowed or sped up only
// inside time_launches, runs longer or shorter (red team 32's files 01 and 03).
constexpr double kMostKernelsApartMs = 0.001;
constexpr double kMostKernelsApartShare = 0.1;
// And no launch, launch 1 included, may add less than the reference's timer
// adds to the same launch by more than this: one pair of events shared out
// among the launches by a ratio does (red team 26, file 02: 2.95 us short);
// chained events, one per boundary, were at most 0.96 us short (run 113).
constexpr double kMostShortfallMs = 0.0015;
// A kernel of a launch of vector_add (a vector_add may launch more than one, on streams of its own)
// belongs to the launch's span if it runs within this much of the span so far, and the gap counts:
// queued kernels follow each other within about a microsecond, a wait across streams for an event
// takes a few (red team 29's file 01: four chunks forked and joined by events). A side kernel run
// during the stream's hold is a millisecond away, and a timer that drained the hold leaves the
// GPU waiting about 12 us between launches for the host's (red team 26, file 03), which breaks
// the span there.
constexpr double kMostGapInLaunchMs = 0.005;
// Their warm speed-up must show at least this share of the cache's gain that
// the reference's runner measures (1.53x-1.69x on an H100): a timer that
// averages the launches shows none. A slower kernel from L2 gains less: one
// thread per element 1.21x-1.29x. (A bar from the student's own kernel's gain
// made a correct timer around a kernel other than vector_add pass or fail by
// noise, run 75; the warm launches' bound above already holds a waiting timer.)
constexpr double kShareOfCacheGain = 0.2;

double warm_ms(const std::vector<std::vector<double>>& launch_ms) {
  std::vector<double> warm;
  for (int i = 1; i < kLaunches; ++i) warm.push_back(memlab::median(launch_ms[i]));
  return memlab::median(warm);
}

double warm_speedup(const std::vector<std::vector<double>>& launch_ms) {
  return memlab::median(launch_ms[0]) / warm_ms(launch_ms);
}

}  // namespace

void require_times(const std::vector<float>& ms, int launches) {
  if (ms.size() != static_cast<std::size_t>(launches)) {
    FAIL("time_launches returned " << ms.size() << " times for " << launches << " launches");
  }
  for (std::size_t i = 0; i < ms.size(); ++i) {
    if (!(std::isfinite(ms[i]) && ms[i] > 0.0f)) {
      FAIL("launch " << i + 1 << " took " << ms[i] << " ms by your events: every time must be positive");
    }
  }
}

namespace {

using Kernels = std::vector<grading::KernelLaunch>;

// The same kernel. Not the same grid and block: a vector_add may tune its launch from call to call
// (red team 33's file 03 chose its block size per n by events); what a launch of time_launches
// does with the kernel is judged by its time beside the direct calls' (kMostKernelsApartMs).
bool same_launch(const grading::KernelLaunch& a, const grading::KernelLaunch& b) { return a.kernel == b.kernel; }

std::string readable_list(Kernels::const_iterator first, Kernels::const_iterator last) {
  std::string text;
  for (auto kernel = first; kernel != last; ++kernel) {
    text += (text.empty() ? "" : ", ") +
            format_text("%s<<<(%u, %u, %u), (%u, %u, %u)>>>", grading::readable_name(kernel->kernel).c_str(),
                        kernel->grid[0], kernel->grid[1], kernel->grid[2], kernel->block[0], kernel->block[1],
                        kernel->block[2]);
  }
  return text.empty() ? "no kernel" : text;
}

// What one launch of vector_add is on @p side: the kernels, in launch order, that a direct call of
// its vector_add at @p n launches (empty where the runner could not watch). A launch of
// time_launches must be exactly these (red team 29: a kernel of the timer's own choosing, or
// launch 1 cut in two, was otherwise taken for a launch and its time for the launch's).
Kernels kernels_of_vector_add(const lab1::Api& api, remote::Side side, Arrays& arr, std::size_t n) {
  api.vector_add(arr.a(), arr.b(), arr.c(), n, grading::stream());
  return remote::launch_log(side).back().kernels;
}

// The kernels of each launch the last call of time_launches in @p side's runner made, as its launch
// watch saw them (launch_watch.hpp); empty where it could not watch. Fails the check if the call
// launched a CUDA graph, or if its launch i did not run exactly the kernels of @p expected[i], in
// their order (red team 19's file 01 launched once and reported five).
std::vector<Kernels> timer_launches(remote::Side side, const std::vector<Kernels>& expected) {
  const grading::Launches& made = remote::launch_log(side).back();
  if (!made.watched) return {};
  if (made.unnamed > 0) {
    FAIL("time_launches made or launched a CUDA graph, whose launches the grader cannot time: launch vector_add "
         "directly, once per launch");
  }
  std::size_t asked = 0;
  for (const Kernels& launch : expected) asked += launch.size();
  const std::string advice = "it must call vector_add once per launch, on the arrays and the n it is given, and launch "
                             "nothing else, and vector_add must launch the same kernels in every call at one n "
                             "(lab1.cuh)";
  const std::size_t per_launch = expected.empty() ? 0 : expected.front().size();
  if (per_launch == 0 || made.kernels.size() != asked) {
    FAIL("time_launches launched " << made.kernels.size() << " kernels when asked for " << expected.size()
                                   << " launches of vector_add, which launches " << per_launch
                                   << " at this n: " << advice);
  }
  std::vector<Kernels> launches;
  auto next = made.kernels.begin();
  for (const Kernels& one_launch : expected) {
    const Kernels& ran = launches.emplace_back(next, next + static_cast<std::ptrdiff_t>(one_launch.size()));
    next += static_cast<std::ptrdiff_t>(one_launch.size());
    if (!std::equal(one_launch.begin(), one_launch.end(), ran.begin(), same_launch)) {
      FAIL("launch " << launches.size() << " of time_launches ran " << readable_list(ran.begin(), ran.end())
                     << ", where a call of your vector_add at the same n runs "
                     << readable_list(one_launch.begin(), one_launch.end()) << ": " << advice);
    }
  }
  return launches;
}

// The GPU's own time of one launch of vector_add (@p what, for a failure's message), by CUPTI's
// kernel records. The span starts from the launch's longest kernel and takes in every kernel of
// the launch, on whatever stream, that runs within kMostGapInLaunchMs of it, and of those taken
// in: chunks of a vector_add on several streams, forked and joined, count whole, while a side
// kernel that ran apart from the launch (corpus 1's out_of_bounds puts one on the legacy stream,
// where it runs during the hold) stays out, as a timer's events on the launch's stream do not
// bracket it. Fails the check if a kernel was not timed.
struct Span {
  double ms = 0.0;
  int streams = 1;  // the streams the kernels taken in ran on
};
Span span_of(const Kernels& launch, const std::string& what) {
  std::vector<std::pair<double, double>> runs;  // each kernel's start and end
  for (const grading::KernelLaunch& kernel : launch) {
    if (kernel.started_ms < 0.0f || kernel.ended_ms < 0.0f) {
      FAIL("the grader could not time " << what << " (" << kernel.kernel
                                        << "): launch vector_add's kernels with <<<...>>> or cudaLaunchKernel, on a "
                                           "stream");
    }
    runs.emplace_back(kernel.started_ms, kernel.ended_ms);
  }
  // Grown from the longest kernel until no other runs within kMostGapInLaunchMs of the span.
  const auto longest = std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
    return a.second - a.first < b.second - b.first;
  });
  double started = longest->first;
  double ended = longest->second;
  std::vector<bool> taken(runs.size(), false);
  taken[static_cast<std::size_t>(longest - runs.begin())] = true;
  for (bool grew = true; grew;) {
    grew = false;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (taken[r] || runs[r].first > ended + kMostGapInLaunchMs || runs[r].second < started - kMostGapInLaunchMs) {
        continue;
      }
      taken[r] = grew = true;
      started = std::min(started, runs[r].first);
      ended = std::max(ended, runs[r].second);
    }
  }
  std::vector<std::uint32_t> spanned;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (taken[r] && std::find(spanned.begin(), spanned.end(), launch[r].stream_id) == spanned.end()) {
      spanned.push_back(launch[r].stream_id);
    }
  }
  return {ended - started, static_cast<int>(spanned.size())};
}

// kLaunches calls of @p side's vector_add at @p n, made by its runner back to back behind an L2
// flush and a hold, each between the runner's own events and with CUPTI's kernel records: the
// yardstick of the timer's launches at L2/2. The grader makes these calls, so what they run is
// what vector_add runs; the launches time_launches makes are the student's to shape (red team
// 32: a kernel slow only inside time_launches, or warm launches on a prefix of the arrays, set
// their own yardstick when that was the launches' own span).
struct DirectCalls {
  std::vector<Kernels> kernels;   // per call
  std::vector<double> events_ms;  // the runner's events around each call
  std::vector<double> spans_ms;   // the GPU's own time of each call's kernels; empty where unwatched
  int most_streams = 1;           // the most streams one call's spanned kernels ran on
  bool all_queued_first = false;  // every call returned before the first ran
};
DirectCalls direct_calls(remote::Side side, Arrays& arr, std::size_t n) {
  remote::before_next_call({true, kHoldMicroseconds, true});
  const remote::RunnerTimes times = remote::time_in_runner(side, &lab1::Api::vector_add, kLaunches, arr.a(), arr.b(),
                                                           arr.c(), n, grading::stream());
  DirectCalls direct;
  direct.events_ms = times.ms;
  direct.all_queued_first = times.all_queued_first;
  for (const grading::Launches& call : times.calls) {
    if (call.unnamed > 0) FAIL("your vector_add made or launched a CUDA graph, whose launches the grader cannot time");
    direct.kernels.push_back(call.kernels);
    if (!call.watched) continue;
    if (call.kernels.empty()) FAIL("a call of your vector_add at n = " << n << " launched no kernel");
    const std::size_t index = direct.kernels.size() - 1;
    const Span span = span_of(call.kernels, format_text("call %zu of vector_add", index + 1));
    // No longer than the runner's events around the call: a kernel of the call's that ran outside
    // them (during the hold, on a stream the call never waited for) is no part of its time, and
    // would otherwise be the span (red team 33's file 01: a pace kernel, long in every call).
    direct.spans_ms.push_back(std::min(span.ms, direct.events_ms[index]));
    direct.most_streams = std::max(direct.most_streams, span.streams);
  }
  return direct;
}

// c after a call of time_launches: it must have launched vector_add on the
// arrays it was given (a timer that launches nothing reports nothing true).
void require_computed(const grading::CheckedWork& run, std::size_t n) {
  if (const std::string wrong = run.verify(); !wrong.empty()) {
    FAIL("after time_launches at n = " << n << ", " << wrong << ": it must launch vector_add on the arrays it is given");
  }
}

// Where every launch streams from DRAM, none can take less than the bytes over
// the theoretical bandwidth (with the clock's shortfall): not by the grader's
// clock for the whole call, nor by the student's word for any one launch. A
// call that launches once and shares the time out among "launches" fails here.
void require_above_the_floor(const std::vector<float>& ms, double call_ms, std::size_t n) {
  const auto bytes = static_cast<double>(n * kBytesPerElement);
  const double floor_ms = grading::kClockShortfall * grading::memory_floor_ms(bytes);
  const double launches = static_cast<double>(ms.size());
  const std::string where = memlab::format_bytes(bytes);
  if (call_ms < launches * floor_ms) {
    FAIL(format_text("at %s the call of time_launches took %.4f ms by the grader's clock, less than %g launches can "
                     "take on this GPU's memory (%.4f ms): it must launch vector_add as many times as it is asked",
                     where.c_str(), call_ms, launches, launches * floor_ms));
  }
  for (std::size_t i = 0; i < ms.size(); ++i) {
    if (ms[i] < floor_ms) {
      FAIL(format_text("at %s your timer reported launch %zu at %.4f ms, less than one launch can take on this GPU's "
                       "memory (%.4f ms): each launch must be timed by its own events",
                       where.c_str(), i + 1, ms[i], floor_ms));
    }
  }
}

}  // namespace

CallShares measure_call_shares(int rounds_wanted) {
  const std::size_t most = elements_for(large_footprint());
  Arrays& large = arrays(most);
  std::mt19937_64 draw{grading::unpredictable_seed()};
  CallShares result;
  std::ostringstream rounds;
  for (int round = 0; round < rounds_wanted; ++round) {
    const std::size_t n = most / 2 + draw() % (most / 2);
    const int launches = 3 + static_cast<int>(draw() % 4);
    const std::vector<Kernels> expected(static_cast<std::size_t>(launches),
                                        kernels_of_vector_add(student(), remote::Side::student, large, n));
    const grading::CheckedWork run = checked_vector_add(student(), large, n);
    run.prepare();
    remote::remote_clock().start();
    const std::vector<float> ms = student().time_launches(large.a(), large.b(), large.c(), n, launches, grading::stream());
    const double call_ms = remote::remote_clock().stop_ms();
    timer_launches(remote::Side::student, expected);
    require_computed(run, n);
    require_times(ms, launches);
    require_above_the_floor(ms, call_ms, n);
    double reported = 0.0;
    for (float launch : ms) reported += launch;
    result.shares.push_back(reported / call_ms);
    result.first_over_rest.push_back(ms[0] / memlab::median(std::vector<double>(ms.begin() + 1, ms.end())));
    rounds << format_text("%d launches at %s: %.4f ms by your events, the call took %.4f ms by the grader's clock\n",
                          launches, memlab::format_bytes(static_cast<double>(n * kBytesPerElement)).c_str(), reported,
                          call_ms);
  }
  result.rounds = rounds.str();
  return result;
}

namespace {

// One round of time_launches at L2/2 in @p api's runner (@p side), called twice
// in an order drawn at random, each time after an L2 flush and a hold of
// @p hold_us: once as it is, for the times it reports, and once with CUPTI's
// kernel records, for the GPU's own times of the launches it makes. The records
// slow every launch on the host (about 12 us on an H100, run 110), which a
// timer that drains the hold first reports as its own: its figures from that
// call are not used. Launch i of both calls must launch the kernels of direct
// call i of vector_add at the same n (@p direct; timer_launches()).
struct TimerRound {
  std::vector<float> reported;
  std::vector<double> kernels;   // the recorded launches' own times; empty where the runner could not watch
  bool waited_for_hold = false;  // the plain call's last launch came after the hold was over
};
TimerRound time_launches_twice(const lab1::Api& api, remote::Side side, Arrays& arr, std::size_t n, int hold_us,
                               const DirectCalls& direct, std::mt19937_64& draw) {
  TimerRound round;
  const bool recorded_first = draw() % 2 == 0;
  for (int call = 0; call < 2; ++call) {
    const bool recorded = (call == 0) == recorded_first;
    const grading::CheckedWork run = checked_vector_add(api, arr, n);
    run.prepare();
    remote::before_next_call({true, hold_us, recorded});
    const std::vector<float> ms = api.time_launches(arr.a(), arr.b(), arr.c(), n, kLaunches, grading::stream());
    const std::vector<Kernels> launches = timer_launches(side, direct.kernels);
    require_computed(run, n);
    require_times(ms, kLaunches);
    if (!recorded) {
      round.reported = ms;
      round.waited_for_hold = !launches.empty() && remote::launch_log(side).back().launched_after_hold;
    }
    for (std::size_t i = 0; recorded && i < launches.size(); ++i) {
      round.kernels.push_back(span_of(launches[i], format_text("launch %zu of time_launches", i + 1)).ms);
    }
  }
  return round;
}

}  // namespace

// Launches here take only microseconds, about as long as the host needs to
// enqueue one; holding the stream until all are queued keeps the host's pace
// out of the times. Every other round the hold is longer. Events on the stream
// see the launches only once the hold is over, so a timer that times the GPU
// reports the same launch 1 either way; a timer on the host's clock that starts
// before its first launch could run counts the hold in launch 1.
TimerAtHalfL2 measure_timer_at_half_l2(int rounds) {
  const std::size_t n = elements_for(grading::device().l2_bytes / 2);
  Arrays& arr = arrays(n);
  std::mt19937_64 draw{grading::unpredictable_seed()};
  TimerAtHalfL2 result;
  result.n = n;
  for (auto* per_launch : {&result.theirs, &result.their_kernels, &result.their_direct, &result.their_by_runner,
                           &result.reference_timer, &result.reference_kernels, &result.reference_direct,
                           &result.reference_by_runner}) {
    per_launch->resize(kLaunches);
  }
  const auto keep = [](std::vector<std::vector<double>>& per_launch, const auto& times) {
    for (std::size_t i = 0; i < times.size(); ++i) per_launch[i].push_back(times[i]);
  };
  for (int round = 0; round < rounds; ++round) {
    const bool long_hold = round % 2 == 1;
    const int hold_us = long_hold ? kLongHoldMicroseconds : kHoldMicroseconds;
    const DirectCalls their_direct = direct_calls(remote::Side::student, arr, n);
    keep(result.their_direct, their_direct.spans_ms);
    keep(result.their_by_runner, their_direct.events_ms);
    result.their_most_streams = std::max(result.their_most_streams, their_direct.most_streams);
    if (!their_direct.all_queued_first) ++result.rounds_vector_add_waited;
    const TimerRound theirs = time_launches_twice(student(), remote::Side::student, arr, n, hold_us, their_direct, draw);
    keep(result.theirs, theirs.reported);
    keep(result.their_kernels, theirs.kernels);
    result.first_after_hold[long_hold].push_back(theirs.reported[0]);
    result.rounds_timer_waited += theirs.waited_for_hold;
    // The reference's timer on the same launches: what a correct timer adds to the kernels' own
    // times on this GPU (its events' overhead), and the cache's gain it shows.
    const DirectCalls reference_direct = direct_calls(remote::Side::reference, arr, n);
    keep(result.reference_direct, reference_direct.spans_ms);
    keep(result.reference_by_runner, reference_direct.events_ms);
    const TimerRound correct =
        time_launches_twice(reference(), remote::Side::reference, arr, n, hold_us, reference_direct, draw);
    keep(result.reference_timer, correct.reported);
    keep(result.reference_kernels, correct.kernels);
  }
  return result;
}

TimerVerdict judge_timer_at_half_l2() {
  const TimerAtHalfL2 half = measure_timer_at_half_l2(kCacheRounds);
  const std::vector<std::vector<double>>& theirs = half.theirs;
  // The yardsticks: the GPU's own times of the launches of direct calls of each side's vector_add
  // (kernel records); where a runner could not watch, its events around those calls.
  const bool recorded = !half.their_direct[0].empty() && !half.reference_direct[0].empty() &&
                        !half.their_kernels[0].empty();
  const std::vector<std::vector<double>>& own = recorded ? half.their_direct : half.their_by_runner;
  const std::vector<std::vector<double>>& references = half.reference_timer;
  const double hold_seen_ms = memlab::median(half.first_after_hold[1]) - memlab::median(half.first_after_hold[0]);
  const double student_speedup = warm_speedup(theirs);
  const double own_kernel_speedup = warm_speedup(own);
  const double reference_speedup = warm_speedup(references);
  const double their_warm_ms = warm_ms(theirs);
  const double own_warm_ms = warm_ms(own);
  // What each timer adds to its warm launches' own times: a correct timer, its events' overhead
  // (the reference's, on this GPU); a timer that waits between launches or reads a host clock,
  // also the host's wake-up and the next launch. Times from the student's runner are the
  // student's word: forged, they remove the checks they take part in (this one, and whether
  // vector_add waits) and leave the others.
  const double their_excess_ms = their_warm_ms - own_warm_ms;
  // Unwatched, the yardstick is events around the kernel, as the reference's timer's are.
  const double reference_excess_ms = recorded ? warm_ms(references) - warm_ms(half.reference_direct) : 0.0;
  // What joining a vector_add's streams costs beyond its kernels, as the runner's events around
  // the direct calls saw it, over what they saw around the reference's; at most kJoinAllowanceMs
  // for each stream beyond the first (red team 32's file 02 bought the allowance with empty
  // kernels on streams it never joined, which cost the events nothing).
  const double join_cost_ms =
      recorded ? (warm_ms(half.their_by_runner) - warm_ms(half.their_direct)) -
                     (warm_ms(half.reference_by_runner) - warm_ms(half.reference_direct))
               : 0.0;
  const double join_allowance_ms =
      std::clamp(join_cost_ms, 0.0, kJoinAllowanceMs * (half.their_most_streams - 1));
  const double most_excess_ms = reference_excess_ms + kMostExcessOverReferenceMs + join_allowance_ms;
  // Launch by launch, launch 1 included: the launch whose excess falls furthest short of the
  // reference timer's on the same launch, and the launch whose kernels ran furthest from the
  // direct call's of the same rank.
  int shortest = 0;
  double shortfall_ms = 0.0;
  int furthest = 0;
  double kernels_apart = 0.0;  // as a share of the most allowed
  std::vector<double> their_launch_excess_ms(kLaunches), reference_launch_excess_ms(kLaunches, 0.0);
  for (int i = 0; i < kLaunches; ++i) {
    their_launch_excess_ms[i] = memlab::median(theirs[i]) - memlab::median(own[i]);
    if (recorded) {
      reference_launch_excess_ms[i] = memlab::median(references[i]) - memlab::median(half.reference_direct[i]);
      const double apart = std::abs(memlab::median(half.their_kernels[i]) - memlab::median(own[i])) /
                           std::max(kMostKernelsApartMs, kMostKernelsApartShare * memlab::median(own[i]));
      if (apart > kernels_apart) {
        kernels_apart = apart;
        furthest = i;
      }
    }
    const double short_by = reference_launch_excess_ms[i] - their_launch_excess_ms[i];
    if (i == 0 || short_by > shortfall_ms) {
      shortfall_ms = short_by;
      shortest = i;
    }
  }
  const double least_speedup = std::max(kNoSpeedup, 1.0 + kShareOfCacheGain * (reference_speedup - 1.0));
  grading::value("launch1_longer_after_long_hold_ms", hold_seen_ms);
  grading::value("reference_warm_speedup", reference_speedup);
  grading::value("student_warm_speedup", student_speedup);
  grading::value("own_kernel_warm_speedup", own_kernel_speedup);
  grading::value("kernel_records", recorded ? 1.0 : 0.0);
  grading::value("their_excess_us", 1e3 * their_excess_ms);
  grading::value("reference_excess_us", 1e3 * reference_excess_ms);
  grading::value("most_streams_in_a_launch", half.their_most_streams);
  grading::value("join_cost_us", 1e3 * join_cost_ms);
  grading::value("timer_kernels_apart_share", kernels_apart);
  grading::value("launch_excess_shortfall_us", 1e3 * shortfall_ms);
  grading::value("runner_events_warm_ms", warm_ms(half.their_by_runner));
  grading::value("least_warm_speedup", least_speedup);
  const char* yardstick =
      recorded ? "your vector_add's kernels by the GPU" : "the grader's events around your vector_add";
  std::ostringstream table;
  for (int i = 0; i < kLaunches; ++i) {
    table << format_text("launch %d: %.4f ms by your events, %.4f ms %s, %.4f ms by the reference's\n", i + 1,
                         memlab::median(theirs[i]), memlab::median(own[i]), yardstick, memlab::median(references[i]));
    grading::value(format_text("launch%d_student_ms", i + 1), memlab::median(theirs[i]));
    grading::value(format_text("launch%d_own_kernel_ms", i + 1), memlab::median(own[i]));
    if (recorded) grading::value(format_text("launch%d_timer_kernels_ms", i + 1), memlab::median(half.their_kernels[i]));
    grading::value(format_text("launch%d_reference_ms", i + 1), memlab::median(references[i]));
  }
  TimerVerdict verdict;
  verdict.measured = format_text("at L2/2 launches 2-5 %.2fx faster than launch 1 (%s %.2fx, the reference's %.2fx)",
                                 student_speedup, yardstick, own_kernel_speedup, reference_speedup);
  verdict.note = format_text("Your timer, %s and the reference's at L2/2, medians of %d rounds:\n", yardstick,
                             kCacheRounds) + table.str();
  const std::string where = format_text("(medians of %d rounds at %s)", kCacheRounds,
                                        describe_footprint(half.n * kBytesPerElement, grading::device().l2_bytes).c_str());
  // A vector_add that waits fails every round; a host busy elsewhere for a
  // millisecond, now and then, only some.
  grading::value("rounds_vector_add_waited", half.rounds_vector_add_waited);
  grading::value("rounds_timer_waited", half.rounds_timer_waited);
  if (2 * half.rounds_vector_add_waited > kCacheRounds) {
    verdict.failure = format_text(
        "your vector_add did not return before the GPU ran it: in %d of %d rounds the grader queued %d calls of it "
        "behind a %.0f ms hold of the stream, and the first had run before the last was queued. Either it waits for "
        "the GPU (cudaStreamSynchronize, cudaDeviceSynchronize, MEMLAB_CHECK_LAUNCH_SYNC, cudaFree, a blocking copy), "
        "which lab1.cuh promises it does not, or it spends a long time on the host before it launches "
        "(a device query in every call, for example: ask once, or use memlab::multiprocessor_count()). Either way its "
        "launches cannot run back to back, and no timer can show the cache.",
        half.rounds_vector_add_waited, kCacheRounds, kLaunches, 1e-3 * kHoldMicroseconds);
  } else if (2 * half.rounds_timer_waited > kCacheRounds) {
    verdict.failure = format_text(
        "your time_launches waited for the GPU before its last launch in %d of %d rounds (a cudaStreamSynchronize "
        "or cudaDeviceSynchronize before or between launches?). The grader holds the stream for a millisecond before each call, so that "
        "your launches queue up behind the hold and then run back to back, as they would in a longer run. Waiting "
        "first drains the hold: your launches then run only as fast as the host can queue them, and your events "
        "count the GPU waiting for the host, not your kernel. Record every event and launch without waiting, then "
        "wait once, for the last stop event.",
        half.rounds_timer_waited, kCacheRounds);
  } else if (hold_seen_ms > 0.5e-3 * (kLongHoldMicroseconds - kHoldMicroseconds)) {
    verdict.failure = format_text("launch 1 took %.3f ms longer by your timer when the stream was held %.0f ms longer "
                                  "before your launches could run: your timer counts time before the GPU ran launch 1 "
                                  "(a host clock?). Record a CUDA event on the stream before and after each launch.",
                                  hold_seen_ms, 1e-3 * (kLongHoldMicroseconds - kHoldMicroseconds));
  } else if (kernels_apart > 1.0) {
    verdict.failure = table.str() + format_text(
        "%s: the kernels of launch %d of your time_launches ran %.4f ms by the GPU, where the same launch of %d direct "
        "calls of your vector_add ran %.4f ms: time_launches must launch vector_add as it is, on the arrays and the n "
        "it is given, and its launches must do the work such calls do.",
        where.c_str(), furthest + 1, memlab::median(half.their_kernels[furthest]), kLaunches,
        memlab::median(own[furthest]));
  } else if (shortfall_ms > kMostShortfallMs) {
    verdict.failure = table.str() + format_text("%s: launch %d took %.4f ms by your timer and %.4f ms by %s: %.1f us "
                                                "more, where the reference's timer adds %.1f us to its launch %d on "
                                                "this GPU (at least %.1f us expected). Your timer must time each "
                                                "launch that time_launches makes, between its own events.",
                                                where.c_str(), shortest + 1, memlab::median(theirs[shortest]),
                                                memlab::median(own[shortest]), yardstick,
                                                1e3 * their_launch_excess_ms[shortest],
                                                1e3 * reference_launch_excess_ms[shortest], shortest + 1,
                                                1e3 * (reference_launch_excess_ms[shortest] - kMostShortfallMs));
  } else if (their_excess_ms > most_excess_ms) {
    verdict.failure = table.str() + format_text("%s: launches 2-5 took %.4f ms each by your timer and %.4f ms by %s: "
                                                "%.1f us more, where a timer of CUDA events adds %.1f us on this GPU "
                                                "(at most %.1f us allowed%s). Your timer counts time when the GPU was "
                                                "not running your launch: the host's launch and wake-up (a host "
                                                "clock?) or a wait between launches. Record a start and a stop event "
                                                "around each launch, all before waiting.",
                                                where.c_str(), their_warm_ms, own_warm_ms, yardstick,
                                                1e3 * their_excess_ms, 1e3 * reference_excess_ms,
                                                1e3 * most_excess_ms,
                                                join_allowance_ms > 0.0
                                                    ? format_text(", with %.1f us for joining your launches' %d "
                                                                  "streams", 1e3 * join_allowance_ms,
                                                                  half.their_most_streams).c_str()
                                                    : "");
  } else if (reference_speedup >= kClearlyFaster + 0.1 &&
             (student_speedup < least_speedup || (recorded && own_kernel_speedup < least_speedup))) {
    // Both the timer and the kernels must show it: a timer can add to launch 1 what it likes within
    // the bounds above (red team 33's file 02 put a memset inside launch 1's events).
    // Where the grader's events see no gain either, the kernel is what hides the cache.
    const char* advice = own_kernel_speedup < least_speedup
                             ? "Your kernel itself gains little from L2 by the GPU's own times: it bypasses or evicts "
                               "the cache (streaming loads or stores?), so no timer can show what this step asks. "
                               "Load and store as the lab's vector_add does."
                             : "Time each launch with its own pair of events, and do not wait between launches.";
    verdict.failure = table.str() + format_text("%s: launches 2-5 are %.2fx faster than launch 1 by your events, "
                                                "%.2fx by %s and %.2fx by the reference's (at least %.2fx needed). %s",
                                                where.c_str(), student_speedup, own_kernel_speedup, yardstick,
                                                reference_speedup, least_speedup, advice);
  }
  return verdict;
}

}  // namespace lab1::checks
