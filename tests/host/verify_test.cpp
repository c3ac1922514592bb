#include "memlab/grading/catch2.hpp"
#include "memlab/random.hpp"
#include "memlab/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>

namespace {
template <typename T>
T poisoned() {
  T value;
  std::memset(&value, memlab::kPoisonByte, sizeof value);
  return value;
}
const memlab::Tolerance kTight = memlab::default_tolerance<float>();
}  // namespace

TEST_CASE("poisoned floats and doubles are NaN and recognised as unwritten", "[verify]") {
  CHECK(std::isnan(poisoned<float>()));
  CHECK(std::isnan(poisoned<double>()));
  CHECK(memlab::is_poison(poisoned<float>()));
  CHECK_FALSE(memlab::is_poison(std::nanf("")));  // a NaN a kernel computed is not "unwritten"
  CHECK_FALSE(memlab::is_poison(1.0f));
}

TEST_CASE("identical outputs pass", "[verify]") {
  const std::vector<float> v = {1.0f, -2.5f, 3e-8f, 0.0f};
  const auto result = memlab::compare(v, v, kTight);
  CHECK(result.ok());
  CHECK(result.checked == 4);
  CHECK(result.describe("c") == "c: all 4 elements correct");
}

TEST_CASE("errors within relative plus absolute tolerance pass, larger ones fail", "[verify]") {
  const memlab::Tolerance tolerance{1e-3, 1e-6};
  CHECK(memlab::compare<double>({1000.9}, {1000.0}, tolerance).ok());       // 0.9 <= 1e-6 + 1.0
  CHECK_FALSE(memlab::compare<double>({1001.1}, {1000.0}, tolerance).ok()); // 1.1 > 1.000001
  CHECK(memlab::compare<double>({5e-7}, {0.0}, tolerance).ok());            // near zero: absolute
  CHECK_FALSE(memlab::compare<double>({5e-6}, {0.0}, tolerance).ok());
}

TEST_CASE("NaN and Inf never pass, whatever the tolerance", "[verify]") {
  const memlab::Tolerance anything{1e300, 1e300};
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_FALSE(memlab::compare<double>({std::nan("")}, {1.0}, anything).ok());
  CHECK_FALSE(memlab::compare<double>({inf}, {1.0}, anything).ok());
  CHECK_FALSE(memlab::compare<double>({inf}, {inf}, anything).ok());
  CHECK_FALSE(memlab::compare<double>({std::nan("")}, {std::nan("")}, anything).ok());
}

TEST_CASE("the report counts mismatches and keeps the first few in order", "[verify]") {
  std::vector<float> expected(100, 1.0f);
  std::vector<float> got = expected;
  for (std::size_t i : {90, 10, 50, 70, 30, 20, 99}) got[i] = 2.0f;
  const auto result = memlab::compare(got, expected, kTight, std::nullopt, 3);
  CHECK(result.mismatches == 7);
  REQUIRE(result.first.size() == 3);
  CHECK(result.first[0].index == 10);
  CHECK(result.first[1].index == 20);
  CHECK(result.first[2].index == 30);
  CHECK(result.first[0].got == 2.0);
  CHECK(result.first[0].expected == 1.0);
}

TEST_CASE("a long comparison, split over the cores, reports as one pass would", "[verify]") {
  // 2^20 elements are compared in ranges on several cores (parallel.hpp): the
  // counts add up, and the first few mismatches stay in element order across ranges.
  const std::size_t n = std::size_t{1} << 20;
  std::vector<float> expected(n, 1.0f);
  std::vector<float> got = expected;
  const std::vector<std::size_t> wrong = {n - 1, 7, (n / 2) + 3, n / 2, 5, (n / 2) + 4};
  for (std::size_t i : wrong) got[i] = 2.0f;
  got[n / 2 + 1] = poisoned<float>();
  const auto result = memlab::compare(got, expected, kTight, std::nullopt, 4);
  CHECK(result.checked == n);
  CHECK(result.mismatches == wrong.size() + 1);
  CHECK(result.unwritten == 1);
  REQUIRE(result.first.size() == 4);
  CHECK(result.first[0].index == 5);
  CHECK(result.first[1].index == 7);
  CHECK(result.first[2].index == n / 2);
  CHECK(result.first[3].index == n / 2 + 1);
  CHECK(result.first[3].unwritten);
}

TEST_CASE("elements still poisoned are reported as never written", "[verify]") {
  std::vector<float> expected = {1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<float> got = {1.0f, 2.0f, poisoned<float>(), poisoned<float>()};
  const auto result = memlab::compare(got, expected, kTight);
  CHECK(result.mismatches == 2);
  CHECK(result.unwritten == 2);
  CHECK(result.first[0].unwritten);
  CHECK(result.describe("c") ==
        "c: 2 of 4 elements wrong (2 never written); first: c[2] = never written, expected 3; "
        "c[3] = never written, expected 4");
}

TEST_CASE("matrix mismatches are reported by row and column", "[verify]") {
  // 3 x 4 row-major: element 9 is row 2, column 1. A transposed index shows up here.
  std::vector<double> expected(12, 0.5);
  std::vector<double> got = expected;
  got[9] = -0.5;
  const auto result = memlab::compare(got, expected, memlab::default_tolerance<double>(),
                                      memlab::MatrixShape{3, 4});
  REQUIRE(result.first.size() == 1);
  CHECK(result.first[0].row == 2);
  CHECK(result.first[0].col == 1);
  CHECK(result.describe("C") == "C: 1 of 12 elements wrong; first: C[9] (row 2, col 1) = -0.5, expected 0.5");
}

TEST_CASE("compare refuses outputs of the wrong size or shape", "[verify]") {
  CHECK_THROWS_AS(memlab::compare<float>({1.0f}, {1.0f, 2.0f}, kTight), std::invalid_argument);
  CHECK_THROWS_AS(memlab::compare<float>({1.0f, 2.0f}, {1.0f, 2.0f}, kTight, memlab::MatrixShape{2, 2}),
                  std::invalid_argument);
}

TEST_CASE("a write into the guard zone past the end is found", "[verify]") {
  std::vector<float> guard(8, poisoned<float>());
  CHECK_FALSE(memlab::first_overwritten(guard).has_value());
  guard[3] = 0.0f;
  guard[6] = 1.0f;
  REQUIRE(memlab::first_overwritten(guard).has_value());
  CHECK(*memlab::first_overwritten(guard) == 3);
}

TEST_CASE("a write past an output's end is found in the output downloaded with its guard zone", "[verify]") {
  std::vector<float> output_and_guard(4 + 8, poisoned<float>());
  for (int i = 0; i < 4; ++i) output_and_guard[i] = 1.0f;  // the output itself, written
  CHECK_FALSE(memlab::first_overwritten(output_and_guard, 4).has_value());
  output_and_guard[4 + 5] = 2.0f;
  REQUIRE(memlab::first_overwritten(output_and_guard, 4).has_value());
  CHECK(*memlab::first_overwritten(output_and_guard, 4) == 5);  // counted from the end of the output
}

TEST_CASE("random inputs repeat for a seed, differ between seeds and are never constant", "[verify]") {
  const auto a = memlab::random_values<float>(1000, 42, -1.0, 1.0);
  CHECK(a == memlab::random_values<float>(1000, 42, -1.0, 1.0));
  CHECK(a != memlab::random_values<float>(1000, 43, -1.0, 1.0));
  CHECK(std::set<float>(a.begin(), a.end()).size() > 990);
  CHECK(std::count(a.begin(), a.end(), 0.0f) == 0);
  const auto [low, high] = std::minmax_element(a.begin(), a.end());
  CHECK(*low >= -1.0f);
  CHECK(*high <= 1.0f);
  CHECK(*low < -0.9f);  // spread over the whole range
  CHECK(*high > 0.9f);
  CHECK_THROWS_AS(memlab::random_values<float>(4, 1, 1.0, 1.0), std::invalid_argument);
}

TEST_CASE("random_values agrees with random_value, element by element", "[verify]") {
  // The GPU fills arrays with random_value(seed, i); the host must get the same numbers.
  const auto v = memlab::random_values<double>(64, 7, 0.0, 10.0);
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(v[i] == memlab::random_value<double>(7, i, 0.0, 10.0));
}

TEST_CASE("default tolerances are tighter for double than for float", "[verify]") {
  CHECK(memlab::default_tolerance<double>().relative < memlab::default_tolerance<float>().relative);
  // One rounding step of float (2^-24 relative) passes the float tolerance.
  const float x = 1.2345678f;
  CHECK(memlab::compare<float>({std::nextafter(x, 2.0f)}, {x}, kTight).ok());
}

namespace {
// Sums of `count` random terms in [-1, 1]: exactly (long double), and in T one
// term after another, the order that rounds worst.
template <typename T>
std::pair<double, double> exact_and_sequential(std::uint64_t seed, std::size_t count, std::size_t skip = SIZE_MAX) {
  long double exact = 0;
  T sequential = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const T x = memlab::random_value<T>(seed, i, -1.0, 1.0);
    exact += x;
    if (i != skip) sequential += x;
  }
  return {static_cast<double>(exact), static_cast<double>(sequential)};
}
}  // namespace

TEST_CASE("summation tolerance: sequential float sums of 16384 random terms always pass it", "[verify]") {
  constexpr std::size_t kTerms = 16384;
  const memlab::Tolerance tolerance = memlab::summation_tolerance<float>(kTerms);
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const auto [exact, sequential] = exact_and_sequential<float>(seed, kTerms);
    INFO("seed " << seed);
    CHECK(memlab::compare<double>({sequential}, {exact}, tolerance).ok());
  }
}

TEST_CASE("summation tolerance: a sum missing one term fails it", "[verify]") {
  constexpr std::size_t kTerms = 16384;
  const memlab::Tolerance tolerance = memlab::summation_tolerance<float>(kTerms);
  int failed = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const auto [exact, missing_one] = exact_and_sequential<float>(seed, kTerms, kTerms - 1);
    failed += !memlab::compare<double>({missing_one}, {exact}, tolerance).ok();
  }
  // Only a dropped term smaller than the tolerance (about 0.004 here: 0.4% of
  // terms) can go unnoticed; a matrix has thousands of sums, so some fail.
  CHECK(failed >= 190);
}

TEST_CASE("summation tolerance for double: accumulating in float fails it, in double passes", "[verify]") {
  constexpr std::size_t kTerms = 4096;
  const memlab::Tolerance tolerance = memlab::summation_tolerance<double>(kTerms);
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    long double exact = 0;
    double in_double = 0;
    float in_float = 0;
    for (std::size_t i = 0; i < kTerms; ++i) {
      const double x = memlab::random_value<double>(seed, i, -1.0, 1.0);
      exact += x;
      in_double += x;
      in_float += static_cast<float>(x);
    }
    INFO("seed " << seed);
    CHECK(memlab::compare<double>({in_double}, {static_cast<double>(exact)}, tolerance).ok());
    CHECK_FALSE(memlab::compare<double>({static_cast<double>(in_float)}, {static_cast<double>(exact)}, tolerance).ok());
  }
}

TEST_CASE("random_matrix_sums: the sums of a 3 x 5 matrix, by row and by column", "[verify]") {
  const memlab::MatrixShape shape{3, 5};
  const memlab::MatrixSums sums = memlab::random_matrix_sums<float>(11, shape);
  const auto values = memlab::random_values<float>(15, 11);
  REQUIRE(sums.rows.size() == 3);
  REQUIRE(sums.columns.size() == 5);
  for (std::size_t r = 0; r < 3; ++r) {
    double row = 0;
    for (std::size_t c = 0; c < 5; ++c) row += values[r * 5 + c];
    CHECK(sums.rows[r] == memlab::catch2::Approx(row).epsilon(1e-12));
  }
  for (std::size_t c = 0; c < 5; ++c) {
    double column = 0;
    for (std::size_t r = 0; r < 3; ++r) column += values[r * 5 + c];
    CHECK(sums.columns[c] == memlab::catch2::Approx(column).epsilon(1e-12));
  }
}

TEST_CASE("random_matrix_sums: a tall matrix summed on many threads gives every row and column", "[verify]") {
  const memlab::MatrixShape shape{1000, 7};
  const memlab::MatrixSums sums = memlab::random_matrix_sums<double>(5, shape);
  const auto values = memlab::random_values<double>(shape.rows * shape.cols, 5);
  std::vector<long double> columns(shape.cols, 0.0L);
  for (std::size_t r = 0; r < shape.rows; ++r) {
    long double row = 0.0L;
    for (std::size_t c = 0; c < shape.cols; ++c) {
      row += values[r * shape.cols + c];
      columns[c] += values[r * shape.cols + c];
    }
    CHECK(sums.rows[r] == memlab::catch2::Approx(static_cast<double>(row)).epsilon(1e-14));
  }
  for (std::size_t c = 0; c < shape.cols; ++c) {
    CHECK(sums.columns[c] == memlab::catch2::Approx(static_cast<double>(columns[c])).epsilon(1e-14));
  }
}

TEST_CASE("a matrix shape reads rows first", "[verify]") {
  REQUIRE(memlab::describe(memlab::MatrixShape{1000, 37}) == "1000 x 37");
}
