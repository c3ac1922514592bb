// Lab 1's step 2 measurements (timer.hpp).
#include "timer.hpp"

#include "arrays.hpp"
#include "sweep.hpp"

#include <memlab/grading/catch2.hpp>
#include <memlab/grading/remote.hpp>
#include <memlab/report.hpp>

#include <cmath>
#include <random>
#include <sstream>

namespace lab1::checks {

namespace remote = memlab::grading::remote;
using memlab::format_text;

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

CallShares measure_call_shares(int rounds_wanted) {
  const std::size_t most = elements_for(large_footprint());
  Arrays& large = arrays(most);
  std::mt19937_64 draw{grading::unpredictable_seed()};
  CallShares result;
  std::ostringstream rounds;
  for (int round = 0; round < rounds_wanted; ++round) {
    const std::size_t n = most / 2 + draw() % (most / 2);
    const int launches = 3 + static_cast<int>(draw() % 4);
    const grading::CheckedWork run = checked_vector_add(student(), large, n);
    run.prepare();
    remote::remote_clock().start();
    const std::vector<float> ms = student().time_launches(large.a(), large.b(), large.c(), n, launches, grading::stream());
    const double call_ms = remote::remote_clock().stop_ms();
    if (const std::string wrong = run.verify(); !wrong.empty()) {
      FAIL("after time_launches at n = " << n << ", " << wrong << ": it must launch vector_add on the arrays it is given");
    }
    require_times(ms, launches);
    double reported = 0.0;
    for (float launch : ms) reported += launch;
    result.shares.push_back(reported / call_ms);
    rounds << format_text("%d launches at %s: %.4f ms by your events, the call took %.4f ms by the grader's clock\n",
                          launches, memlab::format_bytes(static_cast<double>(n * kBytesPerElement)).c_str(), reported,
                          call_ms);
  }
  result.rounds = rounds.str();
  return result;
}

// Launches here take only microseconds, about as long as the host needs to
// enqueue one; holding the stream until all are queued keeps the host's pace
// out of the times. Every other round the hold is longer. Events on the stream
// see the launches only once the hold is over, so a timer that times the GPU
// reports the same launch 1 either way; a timer on the host's clock that starts
// before its first launch could run counts the hold in launch 1.
TimerAtHalfL2 measure_timer_at_half_l2(int rounds) {
  const std::size_t n = elements_for(grading::device().l2_bytes / 2);
  Arrays& arr = arrays(n);
  TimerAtHalfL2 result;
  result.n = n;
  result.theirs.resize(kLaunches);
  result.references.resize(kLaunches);
  for (int round = 0; round < rounds; ++round) {
    const bool long_hold = round % 2 == 1;
    remote::before_next_call({true, long_hold ? kLongHoldMicroseconds : kHoldMicroseconds});
    const std::vector<float> ms = student().time_launches(arr.a(), arr.b(), arr.c(), n, kLaunches, grading::stream());
    require_times(ms, kLaunches);
    for (int i = 0; i < kLaunches; ++i) result.theirs[i].push_back(ms[i]);
    result.first_after_hold[long_hold].push_back(ms[0]);
    const std::vector<double> mine = reference_launch_times(arr, n);
    for (int i = 0; i < kLaunches; ++i) result.references[i].push_back(mine[i]);
  }
  return result;
}

}  // namespace lab1::checks
