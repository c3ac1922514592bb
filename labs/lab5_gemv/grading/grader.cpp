// Lab 5 grader: checks gemv.cu step by step, beside the reference solution,
// on this machine's GPU, with cuBLAS DGEMV as the yardstick. Run it through
// `make lab5`.
//
// Every threshold below was chosen from measurements or from the error bounds
// of the arithmetic; docs/measurements/lab4-5.md has the runs and the reasoning.
//
// A, x and y, the exact answer and the checked runs are in problem.*.

#include "lab5_api.hpp"
#include "problem.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/grading/catch2.hpp>
#include <memlab/grading/cublas.hpp>
#include <memlab/grading/grader.hpp>
#include <memlab/grading/speed.hpp>
#include <memlab/report.hpp>
#include <memlab/by_gpu.hpp>
#include <memlab/stats.hpp>

#include <cmath>
#include <stdexcept>

namespace grading = memlab::grading;
using memlab::describe;
using memlab::format_text;
using memlab::MatrixShape;
using namespace lab5::checks;

namespace {

// Every timing check: the student's GEMV may take at most this many times the
// reference's time (median of 21 interleaved pairs, L2 flushed before each run,
// measured again once before failing).
constexpr double kSpeedLimit = grading::kSpeedLimit;

// Odd sizes for partial blocks and windows; and one whose sizes are multiples of every power of
// two up to 2048, where a last window is whole (red team 27 sized it cols % 128: 0 there); sizes
// of 2 and 3 past a multiple of 4, where a path of four rows or columns at a time leaves a tail (red
// team 30).
const std::vector<MatrixShape> kShapes = {{1, 1},      {1, 1000},   {1000, 1},    {37, 1000},  {1000, 37},
                                          {129, 4097}, {4097, 129}, {3000, 3001}, {256, 2048}, {1002, 1003},
                                          {1003, 38}};

const lab5::Api& student() { return grading::student<lab5::Api>(); }
const lab5::Api& reference() { return grading::reference<lab5::Api>(); }

// The timing shape on this GPU (memlab::by_gpu::gemv_timing_side).
MatrixShape timing_shape() {
  const std::size_t side = memlab::by_gpu::gemv_timing_side(grading::device().global_memory_bytes);
  return {side, side};
}

std::string check_shapes(lab5::Gemv gemv, lab5::Layout layout) {
  for (MatrixShape shape : kShapes) {
    std::string found = problem(shape).check(gemv, layout);
    if (!found.empty()) return found;
  }
  return "";
}

const char* layout_name(lab5::Layout layout) {
  return layout == lab5::Layout::row_major ? "row-major" : "column-major";
}

// Checks both GEMVs at the timing shape, then times the student's against the reference's.
grading::SpeedComparison time_against_reference(lab5::Gemv mine, lab5::Layout my_layout, lab5::Gemv theirs,
                                                lab5::Layout their_layout) {
  GemvProblem& p = problem(timing_shape());
  const std::string found = p.check(mine, my_layout);
  if (!found.empty()) throw std::runtime_error("wrong at the timing size: " + found);
  const grading::SpeedComparison result = grading::compare_speed(
      p.checked(mine, my_layout), p.checked(theirs, their_layout), kSpeedLimit, grading::memory_floor_ms(p.bytes()));
  grading::record_bandwidth(result, p.bytes());
  grading::measured(grading::bandwidth_text(p.bytes(), result.student_ms),
                    grading::bandwidth_text(p.bytes(), result.reference_ms), result.ratio);
  return result;
}

// cuBLAS DGEMV on A in either layout.
void cublas_row_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x, double beta,
                      double* y, cudaStream_t s) {
  grading::gemv(grading::MatrixOrder::row_major, rows, cols, alpha, a, x, beta, y, s);
}

void cublas_column_major(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                         double beta, double* y, cudaStream_t s) {
  grading::gemv(grading::MatrixOrder::column_major, rows, cols, alpha, a, x, beta, y, s);
}

lab5::Gemv cublas_dgemv(lab5::Layout layout) {
  return layout == lab5::Layout::row_major ? &cublas_row_major : &cublas_column_major;
}

}  // namespace

TEST_CASE("one thread per row on a row-major matrix is correct for any shape", "[step1][correct]") {
  grading::hint("Thread r computes row r: sum over c of a[r * cols + c] * x[c], then "
                "y[r] = alpha * sum + beta * y[r]. Launch enough threads for every row; the rest return.");
  const std::string found = check_shapes(student().gemv_row_major, lab5::Layout::row_major);
  if (!found.empty()) FAIL(found);
  const std::string huge = check_large_shapes(student().gemv_row_major, lab5::Layout::row_major);
  grading::measured(format_text("%zu shapes %s", kShapes.size(), huge.c_str()));
}

TEST_CASE("one thread per row on a column-major matrix is correct for any shape", "[step2][correct]") {
  grading::hint("Column-major: element (r, c) is a[c * rows + r].");
  const std::string found = check_shapes(student().gemv_column_major, lab5::Layout::column_major);
  if (!found.empty()) FAIL(found);
  const std::string huge = check_large_shapes(student().gemv_column_major, lab5::Layout::column_major);
  grading::measured(format_text("%zu shapes %s", kShapes.size(), huge.c_str()));
}

TEST_CASE("one thread per row on a column-major matrix keeps up with the reference", "[step2][speed][timing]") {
  grading::require_step(1);
  grading::hint("One thread per row, and at each step of c a warp reads 32 consecutive elements of column c.");
  const lab5::Layout column = lab5::Layout::column_major;
  const grading::SpeedComparison result =
      time_against_reference(student().gemv_column_major, column, reference().gemv_column_major, column);
  GemvProblem& p = problem(timing_shape());
  const double row_major_ms = grading::median_milliseconds(p.work(student().gemv_row_major, lab5::Layout::row_major));
  grading::value("row_major_gbps", memlab::gigabytes_per_second(p.bytes(), row_major_ms));
  grading::value("column_over_row_major_speedup", row_major_ms / result.student_ms);
  const double speedup = row_major_ms / result.student_ms;
  grading::note(format_text(
      "Step 2 at %s: one thread per row reached\n"
      "  %s on the row-major matrix (step 1) and %s on the column-major one: %.2fx %s.\n"
      "  The row-major warp asks for 32 sectors per load and uses 8 bytes of\n"
      "  each now (the rest on its next loads, from L1); the column-major warp asks for 8 and uses all of\n"
      "  them. Either way one thread per row is only %zu threads, %.0f per SM: too few loads in flight to\n"
      "  keep DRAM busy, and that, not the layout, decides the speed here (step 4).",
      describe(p.shape()).c_str(), grading::bandwidth_text(p.bytes(), row_major_ms).c_str(),
      grading::bandwidth_text(p.bytes(), result.student_ms).c_str(), speedup >= 1 ? speedup : 1 / speedup,
      speedup >= 1 ? "faster" : "slower", p.shape().rows, double(p.shape().rows) / grading::device().sm_count));
  if (!result.passed()) FAIL("your column-major GEMV " << result.explain());
}

TEST_CASE("x through shared memory is correct for any shape", "[step3][correct]") {
  grading::require_step(2);
  grading::hint("Every thread of the block, even past the last row, loads one element of the window (0 past "
                "the end of x) and reaches both __syncthreads(); only the inner loop and the store of y "
                "check the row. The last window is shorter: stop at cols.");
  const grading::StudentLaunches launches;  // a shared-memory kernel in the build counts only if this step launches it
  const std::string found = check_shapes(student().gemv_shared_x, lab5::Layout::column_major);
  if (!found.empty()) FAIL(found);
  const std::string huge = check_large_shapes(student().gemv_shared_x, lab5::Layout::column_major);
  grading::measured(format_text("%zu shapes %s", kShapes.size(), huge.c_str()));
  const std::string method =
      grading::launched_method_missing(launches, "gemv_shared_x", grading::uses_shared_memory, "uses shared memory",
                                       "step 3 stages each window of x in a __shared__ array");
  if (!method.empty()) FAIL(method);
}

TEST_CASE("x through shared memory keeps up with the reference", "[step3][speed][timing]") {
  grading::require_step(2);
  grading::hint("One window load per thread per block width of columns, two barriers per window, and the "
                "same coalesced reads of A as step 2.");
  const lab5::Layout column = lab5::Layout::column_major;
  const grading::StudentLaunches timed;
  const grading::SpeedComparison result =
      time_against_reference(student().gemv_shared_x, column, reference().gemv_shared_x, column);
  // The timed runs are judged as step 3's correctness check judged its calls (red team 28).
  const std::string method =
      grading::launched_method_missing(timed, "gemv_shared_x", grading::uses_shared_memory, "uses shared memory",
                                       "in the timed runs, step 3 stages each window of x in a __shared__ array");
  if (!method.empty()) {
    grading::unscored();
    FAIL(method);
  }
  GemvProblem& p = problem(timing_shape());
  const double plain_ms = grading::median_milliseconds(p.work(student().gemv_column_major, column));
  grading::value("shared_over_plain_time_ratio", result.student_ms / plain_ms);
  grading::note(format_text(
      "Step 3 at %s: with x in shared memory your GEMV took %.2fx the time of your step 2 GEMV,\n"
      "  which reads x straight from global memory (%s against %s).\n"
      "  x is only %s: after the first\n"
      "  warps have read it, L1 and L2 hold it, so the window saves no DRAM traffic, only some L1 requests,\n"
      "  and adds two barriers per window. Both stay far below the copy bandwidth: the number of threads\n"
      "  limits them (step 4). Shared memory pays when each value loaded is used by many threads: lab 4.",
      describe(p.shape()).c_str(), result.student_ms / plain_ms,
      grading::bandwidth_text(p.bytes(), result.student_ms).c_str(), grading::bandwidth_text(p.bytes(), plain_ms).c_str(),
      memlab::format_bytes(double(p.shape().cols) * sizeof(double)).c_str()));
  if (!result.passed()) FAIL("your shared-x GEMV " << result.explain());
}

TEST_CASE("the fast GEMV is correct for any shape", "[step4][correct]") {
  grading::hint("With a warp per row, the whole warp must stay for the shuffles: return per warp, not per "
                "thread. With the columns split, add the partial sums of a row (shared memory, or atomicAdd "
                "after scaling y by beta once).");
  const lab5::Layout layout = student().fast_layout();
  const std::string found = check_shapes(student().gemv_fast, layout);
  if (!found.empty()) FAIL(format_text("(%s) ", layout_name(layout)) << found);
  const std::string huge = check_large_shapes(student().gemv_fast, layout);
  grading::measured(format_text("%zu shapes %s, %s", kShapes.size(), huge.c_str(), layout_name(layout)));
}

TEST_CASE("the fast GEMV keeps up with the reference and with cuBLAS", "[step4][speed][timing]") {
  grading::require_step(2);
  grading::hint("Give every row many threads: a warp per row with coalesced loads (row-major), or several "
                "threads per row, each taking a slice of the columns (column-major).");
  const lab5::Layout layout = student().fast_layout();
  const lab5::Layout reference_layout = reference().fast_layout();
  const grading::SpeedComparison result =
      time_against_reference(student().gemv_fast, layout, reference().gemv_fast, reference_layout);
  GemvProblem& p = problem(timing_shape());
  const double cublas_ms = grading::median_milliseconds(p.work(cublas_dgemv(layout), layout));
  const double reference_cublas_ms =
      layout == reference_layout ? cublas_ms : grading::median_milliseconds(p.work(cublas_dgemv(reference_layout), reference_layout));
  grading::value("share_of_cublas", cublas_ms / result.student_ms);
  grading::value("reference_share_of_cublas", reference_cublas_ms / result.reference_ms);
  grading::value("cublas_gbps", memlab::gigabytes_per_second(p.bytes(), cublas_ms));
  grading::note(format_text(
      "Step 4 at %s (%s): your fast GEMV reached %s,\n"
      "  %.0f%% of cuBLAS DGEMV on the same layout (%s; the reference, %s: %.0f%% of cuBLAS).\n"
      "  A GEMV reads each element of A once and does 2 FLOPs with it: 0.25 FLOP per byte, so the copy\n"
      "  bandwidth is its ceiling, for cuBLAS too.",
      describe(p.shape()).c_str(), layout_name(layout), grading::bandwidth_text(p.bytes(), result.student_ms).c_str(),
      100 * cublas_ms / result.student_ms, grading::bandwidth_text(p.bytes(), cublas_ms).c_str(),
      layout_name(reference_layout), 100 * reference_cublas_ms / result.reference_ms));
  if (!result.passed()) FAIL("your fast GEMV " << result.explain());
}
