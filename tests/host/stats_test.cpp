#include "memlab/grading/catch2.hpp"
#include "memlab/stats.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

using memlab::catch2::Approx;

TEST_CASE("percentile interpolates between the nearest ranks", "[stats]") {
  const std::vector<double> v = {4.0, 1.0, 3.0, 2.0};  // sorted: 1 2 3 4
  CHECK(memlab::percentile(v, 0.0) == 1.0);
  CHECK(memlab::percentile(v, 100.0) == 4.0);
  CHECK(memlab::percentile(v, 50.0) == Approx(2.5));
  CHECK(memlab::percentile(v, 10.0) == Approx(1.3));
  CHECK(memlab::percentile(v, 90.0) == Approx(3.7));
}

TEST_CASE("median of an odd count is the middle sample", "[stats]") {
  CHECK(memlab::median({5.0, 1.0, 9.0}) == 5.0);
  CHECK(memlab::median({7.0}) == 7.0);
}

TEST_CASE("median ignores a few very slow samples", "[stats]") {
  // One launch disturbed by another process must not move the result.
  CHECK(memlab::median({1.0, 1.01, 0.99, 1.0, 250.0}) == 1.0);
}

TEST_CASE("percentile refuses empty sets, NaN samples and bad percentiles", "[stats]") {
  CHECK_THROWS_AS(memlab::median({}), std::invalid_argument);
  CHECK_THROWS_AS(memlab::median({1.0, std::nan("")}), std::invalid_argument);
  CHECK_THROWS_AS(memlab::median({1.0, std::numeric_limits<double>::infinity()}), std::invalid_argument);
  CHECK_THROWS_AS(memlab::percentile({1.0}, 101.0), std::invalid_argument);
  CHECK_THROWS_AS(memlab::percentile({1.0}, -1.0), std::invalid_argument);
}

TEST_CASE("summarize reports count, median, extremes and p10/p90", "[stats]") {
  std::vector<double> v;
  for (int i = 1; i <= 11; ++i) v.push_back(i);
  const memlab::Summary s = memlab::summarize(v);
  CHECK(s.count == 11);
  CHECK(s.median == 6.0);
  CHECK(s.min == 1.0);
  CHECK(s.max == 11.0);
  CHECK(s.p10 == Approx(2.0));
  CHECK(s.p90 == Approx(10.0));
}

TEST_CASE("pair ratios divide element by element", "[stats]") {
  const auto r = memlab::pair_ratios({2.0, 3.0, 10.0}, {1.0, 2.0, 4.0});
  REQUIRE(r.size() == 3);
  CHECK(r[0] == 2.0);
  CHECK(r[1] == 1.5);
  CHECK(r[2] == 2.5);
}

TEST_CASE("pair ratios need equal lengths and positive denominators", "[stats]") {
  CHECK_THROWS_AS(memlab::pair_ratios({1.0, 2.0}, {1.0}), std::invalid_argument);
  CHECK_THROWS_AS(memlab::pair_ratios({1.0}, {0.0}), std::invalid_argument);
  CHECK_THROWS_AS(memlab::pair_ratios({1.0}, {-2.0}), std::invalid_argument);
}

TEST_CASE("median of per-pair ratios cancels drift that affects both members", "[stats]") {
  // The GPU clock drifts from 1x to 3x over the run; the student is always 10% slower.
  std::vector<double> student, reference;
  for (int i = 0; i < 9; ++i) {
    const double clock = 1.0 + 0.25 * i;
    reference.push_back(clock);
    student.push_back(1.1 * clock);
  }
  CHECK(memlab::median_ratio(student, reference) == Approx(1.1));
  // Comparing medians of each side would also give 1.1 here, but one pair hit by
  // a hiccup on the student's side only must not change the per-pair median.
  student[4] *= 5.0;
  CHECK(memlab::median_ratio(student, reference) == Approx(1.1));
}

TEST_CASE("worst_median_ratio finds the series that differ most, in either direction", "[stats]") {
  // Launch 2 of the first timer is 20% fast; launch 3 is 10% slow; 250 is an outlier the median ignores.
  const std::vector<std::vector<double>> first = {{1.0, 1.0, 250.0}, {0.8, 0.8, 0.8}, {1.1, 1.1, 1.1}};
  const std::vector<std::vector<double>> second = {{1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}};
  CHECK(memlab::worst_median_ratio(first, second) == Approx(1.25));
  CHECK(memlab::worst_median_ratio(second, first) == Approx(1.25));
  CHECK(memlab::worst_median_ratio(second, second) == 1.0);
  CHECK(memlab::worst_median_ratio({}, {}) == 1.0);
  CHECK_THROWS_AS(memlab::worst_median_ratio(first, {{1.0}}), std::invalid_argument);
}

TEST_CASE("the re-run rule passes at the first attempt within the limit", "[stats][rerun]") {
  int calls = 0;
  const auto verdict = memlab::judge_with_rerun(1.25, 2, [&] {
    ++calls;
    return 1.05;
  });
  CHECK(verdict.passed);
  CHECK(calls == 1);
  CHECK(verdict.best() == 1.05);
}

TEST_CASE("the re-run rule forgives one disturbed measurement", "[stats][rerun]") {
  std::vector<double> measurements = {1.9, 1.1};
  std::size_t next = 0;
  const auto verdict = memlab::judge_with_rerun(1.25, 2, [&] { return measurements[next++]; });
  CHECK(verdict.passed);
  CHECK(verdict.attempts == measurements);
  CHECK(verdict.best() == 1.1);
}

TEST_CASE("the re-run rule fails a consistently slow solution", "[stats][rerun]") {
  int calls = 0;
  const auto verdict = memlab::judge_with_rerun(1.25, 3, [&] {
    ++calls;
    return 4.0 + calls;
  });
  CHECK_FALSE(verdict.passed);
  CHECK(calls == 3);
  CHECK(verdict.best() == 5.0);
}

TEST_CASE("the re-run rule treats a NaN measurement as a failure", "[stats][rerun]") {
  const auto verdict = memlab::judge_with_rerun(1.25, 2, [] { return std::nan(""); });
  CHECK_FALSE(verdict.passed);
  CHECK(verdict.attempts.size() == 2);
  CHECK_THROWS_AS(memlab::judge_with_rerun(1.25, 0, [] { return 1.0; }), std::invalid_argument);
}
