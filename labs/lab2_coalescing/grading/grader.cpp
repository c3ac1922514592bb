// Lab 2 grader: checks matrix_sums.cu step by step, beside the reference
// solution, on this machine's GPU. Run it through `make lab2`.
//
// Every threshold below was chosen from measurements; docs/measurements/lab2-3.md
// has the runs, their spread and the reasoning.

#include "lab2_api.hpp"

#include <memlab/grading/catch2.hpp>
#include <memlab/grading/grader.hpp>
#include <memlab/grading/matrix_sums.hpp>
#include <memlab/grading/speed.hpp>
#include <memlab/report.hpp>

#include <sstream>
#include <utility>

namespace grading = memlab::grading;
using grading::SumAxis;
using memlab::format_text;
using memlab::MatrixShape;

namespace {

// Step 3: the student's kernel may take at most this many times the reference's
// time (median of interleaved pairs, L2 flushed before each run; measured again
// once before failing). See docs/measurements/lab2-3.md for the ratios measured
// with nothing different and with each slow variant.
constexpr double kSpeedLimit = grading::kSpeedLimit;

using SumFunction = grading::MatrixSumFunction<float>;

const lab2::Api& student() { return grading::student<lab2::Api>(); }
const lab2::Api& reference() { return grading::reference<lab2::Api>(); }

// Rectangular (a swapped index fails), not multiples of any block size, one row, one column.
const std::vector<MatrixShape> kStep1Shapes = {{1, 1},    {1, 1000},  {1000, 1}, {37, 1000},
                                               {1000, 37}, {300, 257}, {4097, 33}, {2049, 3001}};
// Step 3's kernels split the work differently: very long and very short rows too, one whose
// sizes are multiples of every power of two up to 2048, where no tile is partial, and sizes of
// 2 and 3 past a multiple of 4, where a float2 or float4 path leaves a tail (red team 30).
const std::vector<MatrixShape> kStep3Shapes = {{1, 1},      {1, 1000},   {1000, 1},   {37, 1000}, {1000, 37},
                                               {3, 100001}, {100001, 3}, {256, 2048}, {2049, 3001},
                                               {1000, 38},  {1002, 1003}};

void check_shapes(SumFunction sum, SumAxis axis, const std::vector<MatrixShape>& shapes,
                  grading::Tall tall = grading::Tall::checked) {
  const std::string problem = grading::check_sums_on_shapes(sum, axis, shapes);
  if (!problem.empty()) FAIL(problem);
  const std::string large = grading::check_sums_large(sum, axis, tall);
  grading::measured(format_text("%zu shapes, 1 x 1 to %s; %s", shapes.size(), memlab::describe(shapes.back()).c_str(),
                                large.c_str()));
}

// Times the student's `sum` against the reference's at the timing shape, every
// timed run on a new matrix and checked (SumsWorkspace::checked), and fails the
// running check if it is too slow or a timed run was wrong.
void check_speed(SumFunction sum, SumFunction reference_sum, SumAxis axis) {
  const MatrixShape shape = grading::timing_shape();
  auto& ws = grading::sums_workspace<float>(shape);
  const std::string problem = ws.check(sum, axis);
  if (!problem.empty()) FAIL("wrong at the timing size: " << problem);

  const auto bytes = static_cast<double>(ws.matrix_bytes());
  const grading::SpeedComparison result = grading::compare_speed(
      ws.checked(sum, axis), ws.checked(reference_sum, axis), kSpeedLimit, grading::memory_floor_ms(bytes));
  grading::record_bandwidth(result, bytes);
  grading::measured(grading::bandwidth_text(bytes, result.student_ms),
                    grading::bandwidth_text(bytes, result.reference_ms), result.ratio);
  if (!result.passed()) {
    FAIL("on a " << memlab::describe(shape) << " matrix (" << memlab::format_bytes(bytes) << "), your kernel "
                 << result.explain());
  }
}

struct AccessCase {
  lab2::Access access;
  const char* name;
  int sectors;  // the right answer
};

const AccessCase kAccessCases[] = {
    {lab2::Access::consecutive, "consecutive", 4},     {lab2::Access::offset_by_two, "offset_by_two", 5},
    {lab2::Access::same_address, "same_address", 1},   {lab2::Access::random, "random", 32},
    {lab2::Access::row_per_thread, "row_per_thread", 32}, {lab2::Access::column_per_thread, "column_per_thread", 4},
};

}  // namespace

TEST_CASE("row sums with one thread per row are correct for any shape", "[step1][rows]") {
  check_shapes(student().row_sums_thread_per_row, SumAxis::rows, kStep1Shapes);
}

TEST_CASE("column sums with one thread per column are correct for any shape", "[step1][columns]") {
  // Not on a tall matrix: a thread per column of 2^26 rows is a few threads each reading for seconds.
  check_shapes(student().column_sums_thread_per_column, SumAxis::columns, kStep1Shapes, grading::Tall::not_checked);
}

TEST_CASE("sectors per request are counted right for each access pattern", "[step2][sectors]") {
  grading::require_step(1);
  grading::hint("A sector is 32 bytes (8 floats) and a line 128 bytes (4 sectors). Write down the 32 "
                "addresses of one warp and count the different sectors they fall in.");
  // The step 1 kernels measured, so the student can see what the counts mean.
  const MatrixShape shape = grading::timing_shape();
  auto& ws = grading::sums_workspace<float>(shape);
  const auto bytes = static_cast<double>(ws.matrix_bytes());
  const double peak = grading::ceilings().peak_gbps();
  std::ostringstream note;
  note << format_text("Step 2: your step 1 kernels on a %s matrix (%s), L2 flushed before each run, median of 15\n",
                      memlab::describe(shape).c_str(), memlab::format_bytes(bytes).c_str())
       << "  kernel                           time   bandwidth  % of peak  sectors/request (yours)\n";
  const std::pair<const char*, std::pair<SumFunction, lab2::Access>> kernels[] = {
      {"row_sums_thread_per_row", {student().row_sums_thread_per_row, lab2::Access::row_per_thread}},
      {"column_sums_thread_per_column", {student().column_sums_thread_per_column, lab2::Access::column_per_thread}}};
  for (const auto& [name, kernel] : kernels) {
    const double ms = memlab::median(grading::timer().samples_ms(ws.work(kernel.first), {2, 15, memlab::Cache::cold}));
    const double gbps = memlab::gigabytes_per_second(bytes, ms);
    note << format_text("  %-30s %6.3f ms %7.0f GB/s %8.0f%% %12d\n", name, ms, gbps, 100 * gbps / peak,
                        student().sectors_per_request(kernel.second));
    grading::value(std::string(name) + "_gbps", gbps);
  }
  note << format_text("  peak measured at start: %.0f GB/s, by %s", peak, grading::ceilings().peak_source());
  grading::note(note.str());

  std::ostringstream wrong;
  int right = 0;
  for (const AccessCase& c : kAccessCases) {
    const int answer = student().sectors_per_request(c.access);
    if (answer == c.sectors) {
      ++right;
    } else {
      wrong << format_text("  %s: you said %d\n", c.name, answer);
    }
  }
  const int total = static_cast<int>(std::size(kAccessCases));
  grading::measured(format_text("%d of %d right", right, total));
  if (right != total) FAIL(total - right << " counts are not right:\n" << wrong.str());
}

TEST_CASE("coalesced row sums are correct for any shape", "[step3][rows]") {
  check_shapes(student().row_sums, SumAxis::rows, kStep3Shapes);
}

TEST_CASE("coalesced row sums keep up with the reference", "[step3][rows_speed][timing]") {
  grading::hint("Give each row a warp: lane l reads columns l, l + 32, ..., so the warp's loads are 128 "
                "contiguous bytes, then add the 32 partial sums with __shfl_down_sync.");
  check_speed(student().row_sums, reference().row_sums, SumAxis::rows);
}

TEST_CASE("parallel column sums are correct for any shape", "[step3][columns]") {
  check_shapes(student().column_sums, SumAxis::columns, kStep3Shapes);
}

TEST_CASE("parallel column sums keep up with the reference", "[step3][columns_speed][timing]") {
  grading::hint("One thread per column is too few threads to keep DRAM busy: split the rows into chunks "
                "so there are thousands of blocks' worth of loads in flight, keep neighbouring threads "
                "on neighbouring columns, and combine the chunks' partial sums.");
  check_speed(student().column_sums, reference().column_sums, SumAxis::columns);
}
