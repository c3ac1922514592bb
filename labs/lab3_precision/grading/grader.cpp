// Lab 3 grader: checks precision.cu step by step, beside the reference
// solution, on this machine's GPU. Run it through `make lab3`.
//
// Every threshold below was chosen from measurements or from the error bounds
// of the arithmetic; docs/measurements/lab2-3.md has the runs and the reasoning.
//
// Step 2's rows and timed runs are in spread_rows.*, step 3's data and checked
// runs in polynomial.hpp, what this GPU's FP64 rate should give in expectations.*.

#include "expectations.hpp"
#include "lab3_api.hpp"
#include "polynomial.hpp"
#include "spread_rows.hpp"

#include <memlab/device_random.cuh>
#include <memlab/grading/catch2.hpp>
#include <memlab/grading/grader.hpp>
#include <memlab/grading/matrix_sums.hpp>
#include <memlab/grading/speed.hpp>
#include <memlab/random.hpp>
#include <memlab/report.hpp>
#include <memlab/resources.cuh>
#include <memlab/verify.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <sstream>

namespace grading = memlab::grading;
using grading::SumAxis;
using memlab::format_text;
using memlab::MatrixShape;
using namespace lab3::checks;

namespace {

// Steps 1 and 3: each of the student's kernels may take at most this many times
// the reference's time (median of interleaved pairs, L2 flushed before each run,
// measured again once before failing); see docs/measurements/lab2-3.md.
constexpr double kSpeedLimit = grading::kSpeedLimit;

// Step 2's rows (spread_rows.hpp): 64 of each kind, about 1.7 x 10^7 values.
constexpr MatrixShape kAccuracyShape = {128, kSpreadCols};

const lab3::Api& student() { return grading::student<lab3::Api>(); }
const lab3::Api& reference() { return grading::reference<lab3::Api>(); }

// And one whose sizes are multiples of every power of two up to 2048, where no tile is partial,
// and sizes of 2 and 3 past a multiple of 4, where a vector path leaves a tail (red team 30).
const std::vector<MatrixShape> kShapes = {{1, 1},      {1, 1000},   {1000, 1},    {37, 1000}, {1000, 37},
                                          {3, 100001}, {100001, 3}, {2049, 3001}, {256, 2048}, {1000, 38},
                                          {1002, 1003}};

// Each row's error, in u.
std::vector<double> errors_in_u(const std::vector<double>& got, const std::vector<long double>& exact) {
  std::vector<double> ulps(got.size());
  for (std::size_t r = 0; r < got.size(); ++r) ulps[r] = error_in_u(got[r], exact[r]);
  return ulps;
}

}  // namespace

TEST_CASE("row sums are correct in float and in double", "[step1][correct]") {
  std::string problem = grading::check_sums_on_shapes(student().row_sums_float, SumAxis::rows, kShapes);
  if (!problem.empty()) FAIL("float: " << problem);
  problem = grading::check_sums_on_shapes(student().row_sums_double, SumAxis::rows, kShapes);
  if (!problem.empty()) FAIL("double: " << problem);
  // Each type's function may be a kernel of its own (red team 7 wrapped only the double one).
  const std::string huge_float = grading::check_sums_large(student().row_sums_float, SumAxis::rows);
  const std::string huge_double = grading::check_sums_large(student().row_sums_double, SumAxis::rows);
  grading::measured(format_text("%zu shapes in each type; float %s; double %s", kShapes.size(), huge_float.c_str(),
                                huge_double.c_str()));
}

TEST_CASE("row sums in both types keep up with the reference", "[step1][speed][timing]") {
  grading::hint("Both versions are the same template: if one is slow, the other is too. Make the loads "
                "coalesced and give every row a warp, as in lab 2 step 3.");
  const MatrixShape shape = grading::timing_shape();
  auto& floats = grading::sums_workspace<float>(shape);
  auto& doubles = grading::sums_workspace<double>(shape);
  std::string problem = floats.check(student().row_sums_float, SumAxis::rows);
  if (problem.empty()) problem = doubles.check(student().row_sums_double, SumAxis::rows);
  if (!problem.empty()) FAIL("wrong at the timing size: " << problem);

  // Every timed run on a new matrix and checked (SumsWorkspace::checked).
  const auto float_bytes = static_cast<double>(floats.matrix_bytes());
  const auto double_bytes = static_cast<double>(doubles.matrix_bytes());
  const grading::SpeedComparison in_float = grading::compare_speed(
      floats.checked(student().row_sums_float, SumAxis::rows), floats.checked(reference().row_sums_float, SumAxis::rows),
      kSpeedLimit, grading::memory_floor_ms(float_bytes));
  const grading::SpeedComparison in_double = grading::compare_speed(
      doubles.checked(student().row_sums_double, SumAxis::rows),
      doubles.checked(reference().row_sums_double, SumAxis::rows), kSpeedLimit, grading::memory_floor_ms(double_bytes));
  grading::record_bandwidth(in_float, float_bytes, "float_");
  grading::record_bandwidth(in_double, double_bytes, "double_");
  const double ratio = in_double.student_ms / in_float.student_ms;
  const double reference_ratio = in_double.reference_ms / in_float.reference_ms;
  grading::value("double_float_time_ratio", ratio);
  grading::value("reference_double_float_time_ratio", reference_ratio);
  grading::measured(format_text("float %s, double %s", grading::bandwidth_text(float_bytes, in_float.student_ms).c_str(),
                                grading::bandwidth_text(double_bytes, in_double.student_ms).c_str()),
                    format_text("float %.2fx, double %.2fx", in_float.ratio, in_double.ratio),
                    std::max(in_float.ratio, in_double.ratio));  // the slower type decides
  grading::note(format_text(
      "Step 1: on a %s matrix, your double row sums took %.2fx the time of your float ones (the reference: "
      "%.2fx).\n  The double matrix is %s, the float one %s: twice the bytes through the same DRAM. A "
      "bandwidth-bound kernel's time follows its bytes, so about 2x on any GPU.",
      memlab::describe(shape).c_str(), ratio, reference_ratio, memlab::format_bytes(double_bytes).c_str(),
      memlab::format_bytes(float_bytes).c_str()));
  if (!in_float.passed()) FAIL("float: your row sums " << in_float.explain());
  if (!in_double.passed()) FAIL("double: your row sums " << in_double.explain());
}

namespace {

// "" when no kernel the student's row_sums_compensated launched since @p launches
// adds in double, or may (an untyped tensor-map reduction beside floats widened:
// red team 16): floats widened into a double buffer and added there (red team 15),
// or passed as their bits beside a double (red team 14), are not this step. Every
// call of it is judged, each check's own (red team 23 added in double only on
// the large matrices). Only the kernels it launched: one of step 1's computing a
// count in double does not make these sums (red team 22). Where the runner could
// not watch the launches, every kernel of the build that computes on floats in
// double fails it (a kernel declared extern "C" shows no parameter types: it is
// taken to be one of floats).
std::string compensated_in_double(const grading::StudentLaunches& launches) {
  return grading::launched_method_broken(
      launches, "row_sums_compensated", grading::may_add_in_double, grading::computes_on_floats_in_double,
      "adds in double",
      "the compensated sums add up in float, and compensation is what makes them accurate (any addition "
      "or division in double counts, a count such as ceil((double)cols / blockDim.x) too: compute it in "
      "integers, (cols + blockDim.x - 1) / blockDim.x)");
}

}  // namespace

TEST_CASE("compensated float sums are as accurate as a few roundings", "[step2][accuracy]") {
  grading::require_step(1);
  grading::hint("Kahan: y = x - c; t = sum + y; c = (t - sum) - y; sum = t. Keep c per thread, and when "
                "the threads' partial sums are added, add their compensations too (or subtract each "
                "thread's c from its sum first).");
  // Right on every shape first, as step 1's sums are: short rows and rows of one value too (red
  // team 27's Kahan sum that began each lane at its first term counted that term twice on rows
  // shorter than a warp, which step 2's long rows never have).
  {
    const grading::StudentLaunches shapes;
    const std::string wrong = grading::check_sums_on_shapes(student().row_sums_compensated, SumAxis::rows, kShapes);
    if (!wrong.empty()) FAIL("wrong sums: " << wrong);
    const std::string method = compensated_in_double(shapes);
    if (!method.empty()) FAIL(method);
  }
  const MatrixShape shape = kAccuracyShape;
  const std::size_t count = shape.rows * shape.cols;
  std::vector<float> values(count);
  std::vector<double> values_as_double(count);
  std::vector<long double> exact(shape.rows, 0.0L);
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = step2_value(grading::seed() + 11, i / shape.cols, i % shape.cols);
    values_as_double[i] = values[i];  // exactly the same numbers in both types
    exact[i / shape.cols] += values[i];
  }
  memlab::DeviceBuffer<float> matrix(count), sums(shape.rows);
  memlab::DeviceBuffer<double> matrix_double(count), sums_double(shape.rows);
  matrix.upload(values, grading::stream());
  matrix_double.upload(values_as_double, grading::stream());

  const auto run_float = [&](void (*sum)(const float*, float*, std::size_t, std::size_t, cudaStream_t)) {
    sums.fill_bytes(memlab::kPoisonByte, grading::stream());
    sum(matrix.data(), sums.data(), shape.rows, shape.cols, grading::stream());
    const std::vector<float> got = sums.to_host(shape.rows, grading::stream());
    return errors_in_u(std::vector<double>(got.begin(), got.end()), exact);
  };
  // The compensated sums first: no sum the student's double version made of these values can be
  // kept and handed back as compensated (red team 21).
  const grading::StudentLaunches launches;
  const std::vector<double> compensated = run_float(student().row_sums_compensated);
  const std::string method = compensated_in_double(launches);
  if (!method.empty()) FAIL(method);
  sums_double.fill_bytes(memlab::kPoisonByte, grading::stream());
  student().row_sums_double(matrix_double.data(), sums_double.data(), shape.rows, shape.cols, grading::stream());
  const std::vector<double> in_double = errors_in_u(sums_double.to_host(shape.rows, grading::stream()), exact);
  const std::vector<double> plain = run_float(student().row_sums_float);

  const double u = kUnitRoundoff;
  std::vector<std::size_t> rows(shape.rows);
  for (std::size_t r = 0; r < shape.rows; ++r) rows[r] = r;
  const KindErrors plain_spread = errors_of_kind(plain, rows, 0);
  const KindErrors plain_mixed = errors_of_kind(plain, rows, 1);
  const KindErrors ours_spread = errors_of_kind(compensated, rows, 0);
  const KindErrors ours_mixed = errors_of_kind(compensated, rows, 1);
  const double double_worst = *std::max_element(in_double.begin(), in_double.end());
  grading::value("float_relative_error", plain_spread.worst * u);
  grading::value("float_mixed_relative_error", plain_mixed.worst * u);
  grading::value("double_relative_error", double_worst * u);
  grading::value("compensated_relative_error", ours_spread.worst * u);
  grading::value("compensated_mixed_relative_error", ours_mixed.worst * u);
  grading::note(format_text(
      "Step 2: %zu rows of %zu values. Spread rows: from 0.001 to 1000. Mixed rows: a thousandth of the\n"
      "  values 10^4 to 2x10^4, the rest 3e-4 to 4.8e-4, each row then scaled by a power of two from 1 to\n"
      "  2^-40. Error of a row sum in u = 2^-24 = %.2e, the most one float rounding can lose: worst row\n"
      "  (median row)\n"
      "                               spread rows         mixed rows\n"
      "  float, plain (step 1)       %7.1f (%6.1f)     %7.1f (%6.1f)\n"
      "  float, compensated (yours)  %7.1f (%6.1f)     %7.1f (%6.1f)\n"
      "  double (step 1)             %.1e u at worst\n"
      "  The median row of each kind must be within %.0f u, every row within %.0f u.",
      shape.rows, shape.cols, u, plain_spread.worst, plain_spread.median, plain_mixed.worst, plain_mixed.median,
      ours_spread.worst, ours_spread.median, ours_mixed.worst, ours_mixed.median, double_worst, kMedianUlps,
      kWorstRowUlps));
  const std::string problem = accuracy_problem(compensated, rows);
  const std::string figures = format_text("medians %.1f u and %.1f u, worst %.1f u", ours_spread.median,
                                          ours_mixed.median, std::max(ours_spread.worst, ours_mixed.worst));
  const std::string limits = format_text("medians within %.0f u, every row within %.0f u", kMedianUlps, kWorstRowUlps);
  if (!problem.empty()) {
    grading::measured(figures, limits);
    FAIL("the compensated sums are not accurate enough: " << problem);
  }
  const grading::StudentLaunches past_32_bits;
  const std::string huge = grading::check_sums_large(student().row_sums_compensated, SumAxis::rows);
  grading::measured(figures + "; " + huge, limits);
  const std::string method_past_32_bits = compensated_in_double(past_32_bits);
  if (!method_past_32_bits.empty()) FAIL(method_past_32_bits);
}

TEST_CASE("compensated float sums keep up with the reference", "[step2][speed][timing]") {
  grading::require_step(2);  // a fast sum earns nothing here unless it is the accurate one
  grading::hint("Compensation adds three additions per term to a kernel that waits on memory: step 1's "
                "warp-per-row kernel with a Kahan sum in every lane takes about the reference's time. Sums "
                "computed on the host wait for the matrix to cross PCIe and for one CPU to add it up.");
  // Every timed run on new values, and its sums checked to step 2's accuracy (SpreadRows::checked):
  // the time is that of the accurate sums, wherever they were made.
  static SpreadRows rows;
  const double bytes = rows.matrix_bytes();
  const grading::StudentLaunches timed;  // the student's calls here are all of row_sums_compensated
  const grading::SpeedComparison result =
      grading::compare_speed(rows.checked(student().row_sums_compensated), rows.checked(reference().row_sums_compensated),
                             kSpeedLimit, grading::memory_floor_ms(bytes));
  const std::string method = compensated_in_double(timed);
  if (!method.empty()) FAIL("in the timed runs, " << method);
  grading::record_bandwidth(result, bytes);
  grading::measured(grading::bandwidth_text(bytes, result.student_ms),
                    grading::bandwidth_text(bytes, result.reference_ms), result.ratio);
  if (!result.passed()) {
    FAIL("on " << rows.rows() << " rows of " << kSpreadCols << " spread values (" << memlab::format_bytes(bytes)
               << "), your compensated row sums " << result.explain());
  }
}

TEST_CASE("the polynomial is correct in float and in double", "[step3][correct]") {
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{1000}, std::size_t{65537}, kPolynomialElements}) {
    std::string problem = check_polynomial<float>(student().polynomial_float, n);
    if (!problem.empty()) FAIL("float: " << problem);
    problem = check_polynomial<double>(student().polynomial_double, n);
    if (!problem.empty()) FAIL("double: " << problem);
  }
  const std::string huge_float = check_polynomial_huge<float>(student().polynomial_float);
  const std::string huge_double = check_polynomial_huge<double>(student().polynomial_double);
  grading::measured(format_text("5 sizes in each type, 1 to 2^24; float %s; double %s", huge_float.c_str(),
                                huge_double.c_str()));
}

TEST_CASE("the polynomial in both types keeps up with the reference", "[step3][speed][timing]") {
  grading::hint("The polynomial is compute-bound: launch enough threads to fill every SM, and let each "
                "keep its running value in a register.");
  const std::size_t n = kPolynomialElements;
  std::string problem = check_polynomial<float>(student().polynomial_float, n);
  if (problem.empty()) problem = check_polynomial<double>(student().polynomial_double, n);
  if (!problem.empty()) FAIL("wrong at the timing size: " << problem);

  // Every timed run on new x and checked (checked_polynomial). Compute-bound:
  // the floor is the promised Horner arithmetic at this GPU's measured FMA rate,
  // so a shortcut (the closed form (1 - x^513) / (1 - x), say) is refused
  // however right its values are.
  const double flops = 2.0 * lab3::kPolynomialDegree * static_cast<double>(n);
  const double fp32_gflops = grading::fma_ceiling_gflops(false);
  const double fp64_gflops = grading::fma_ceiling_gflops(true);
  grading::value("fp32_ceiling_gflops", fp32_gflops);
  grading::value("fp64_ceiling_gflops", fp64_gflops);
  const grading::SpeedComparison in_float =
      grading::compare_speed(checked_polynomial<float>(student().polynomial_float),
                             checked_polynomial<float>(reference().polynomial_float), kSpeedLimit,
                             grading::arithmetic_floor_ms(flops, fp32_gflops));
  const grading::SpeedComparison in_double =
      grading::compare_speed(checked_polynomial<double>(student().polynomial_double),
                             checked_polynomial<double>(reference().polynomial_double), kSpeedLimit,
                             grading::arithmetic_floor_ms(flops, fp64_gflops));
  const auto gflops = [flops](double ms) { return memlab::gigaflops_per_second(flops, ms); };
  const double ratio = in_double.student_ms / in_float.student_ms;
  const double reference_ratio = in_double.reference_ms / in_float.reference_ms;
  grading::value("float_gflops", gflops(in_float.student_ms));
  grading::value("double_gflops", gflops(in_double.student_ms));
  grading::value("float_time_ratio", in_float.ratio);
  grading::value("double_time_ratio", in_double.ratio);
  grading::value("double_float_time_ratio", ratio);
  grading::value("reference_double_float_time_ratio", reference_ratio);
  grading::measured(format_text("float %.0f, double %.0f GFLOP/s", gflops(in_float.student_ms), gflops(in_double.student_ms)),
                    format_text("float %.2fx, double %.2fx", in_float.ratio, in_double.ratio),
                    std::max(in_float.ratio, in_double.ratio));  // the slower type decides
  grading::note(format_text(
      "Step 3: the polynomial on %zu elements does %d operations per element: %.0f per byte in float.\n"
      "  Your double version took %.2fx the time of your float one (the reference: %.2fx).\n"
      "  Expected for a compute-bound kernel: %s.\n"
      "  Step 1's bandwidth-bound sums take about 2x on every GPU; this ratio is the GPU's FP64 rate.",
      n, 2 * lab3::kPolynomialDegree, 2.0 * lab3::kPolynomialDegree / (2 * sizeof(float)), ratio,
      reference_ratio, expected_compute_ratio_text().c_str()));
  if (!in_float.passed()) FAIL("float: your polynomial " << in_float.explain());
  if (!in_double.passed()) FAIL("double: your polynomial " << in_double.explain());
}
