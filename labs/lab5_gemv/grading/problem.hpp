/// @file problem.hpp
/// @brief Lab 5's grader: A, x and y on the GPU for one shape, the exact answer,
/// and the GEMVs run and checked on them.
#pragma once

#include "lab5.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/device_random.cuh>
#include <memlab/grading/cublas.hpp>
#include <memlab/grading/grader.hpp>
#include <memlab/grading/speed.hpp>
#include <memlab/parallel.hpp>
#include <memlab/random.hpp>
#include <memlab/report.hpp>
#include <memlab/resources.cuh>
#include <memlab/verify.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace lab5::checks {

namespace grading = memlab::grading;
using memlab::describe;
using memlab::format_text;
using memlab::MatrixShape;

// y = alpha A x + beta y with both scalars unlike 1 and 0, so that leaving
// either out is wrong.
constexpr double kAlpha = 0.75;
constexpr double kBeta = -0.5;

// Each y is kAlpha times a sum of cols products in [-1, 1] with mean zero,
// plus kBeta times y: summation_tolerance's bound, scaled, plus a rounding.
inline memlab::Tolerance gemv_tolerance(std::size_t cols) {
  memlab::Tolerance bound = memlab::summation_tolerance<double>(cols, std::fabs(kAlpha));
  bound.absolute += 4 * std::numeric_limits<double>::epsilon();
  return bound;
}

// The exact y[r] = kAlpha * sum over c of A(r, c) x[c] + kBeta * @p y0, in long
// double, for A of @p cols columns whose element (r, c) is the random value of
// @p a_seed at index @p place(c) (where it lies in A's storage).
template <typename Place>
double exact_y(std::size_t cols, std::uint64_t a_seed, Place place, const std::vector<double>& x, double y0) {
  long double sum = 0.0L;
  for (std::size_t c = 0; c < cols; ++c) {
    sum += static_cast<long double>(memlab::random_value<double>(a_seed, place(c), -1.0, 1.0)) * x[c];
  }
  return static_cast<double>(kAlpha * sum + kBeta * static_cast<long double>(y0));
}

// A in both layouts, x and y, on the GPU, each followed by a guard zone. After
// A and x it holds NaNs (poison), so reading past an end spoils the result.
// After y it holds a finite sentinel instead: y is read before it is written,
// and the GPU carries a NaN's bits through arithmetic, so a stray thread's
// alpha * 0 + beta * NaN would leave poison looking untouched, while
// beta * kGuardSentinel does not. The exact answer is computed on the CPU in
// long double.
class GemvProblem {
 public:
  explicit GemvProblem(MatrixShape shape)
      : shape_(shape),
        count_(shape.rows * shape.cols),
        row_major_(count_ + memlab::kGuardElements),
        column_major_(count_ + memlab::kGuardElements),
        x_(shape.cols + memlab::kGuardElements),
        y_(shape.rows + memlab::kGuardElements) {
    const cudaStream_t s = grading::stream();
    for (auto* buffer : {&row_major_, &column_major_, &x_}) buffer->fill_bytes(memlab::kPoisonByte, s);
    memlab::fill_random(row_major_.data(), count_, seed(kMatrix), -1.0, 1.0, s);
    memlab::fill_random(x_.data(), shape.cols, seed(kX), -1.0, 1.0, s);
    // The column-major copy is the same matrix, transposed by cuBLAS.
    grading::to_column_major(row_major_.data(), column_major_.data(), shape.rows, shape.cols, s);
    y_start_ = memlab::random_values<double>(shape.rows, seed(kY));
    compute_expected();
    y_start_.resize(shape.rows + memlab::kGuardElements, kGuardSentinel);
  }

  MatrixShape shape() const { return shape_; }
  const double* matrix(lab5::Layout layout) const {
    return layout == lab5::Layout::row_major ? row_major_.data() : column_major_.data();
  }
  const double* x() const { return x_.data(); }
  double* y() { return y_.data(); }
  /// Bytes a GEMV must move: A and x read once, y read and written.
  double bytes() const { return sizeof(double) * (double(count_) + double(shape_.cols) + 2.0 * double(shape_.rows)); }

  /// Runs @p gemv on A in @p layout from the starting y; "" if y is right.
  std::string check(lab5::Gemv gemv, lab5::Layout layout) {
    const cudaStream_t s = grading::stream();
    memlab::fill_random(x_.data(), shape_.cols, seed(kX), -1.0, 1.0, s);  // timed runs (checked()) change x
    y_.upload(y_start_, s);  // y_start_ ends with the guard zone's sentinels
    gemv(shape_.rows, shape_.cols, kAlpha, matrix(layout), x_.data(), kBeta, y_.data(), s);
    MEMLAB_CHECK(cudaStreamSynchronize(s));
    MEMLAB_CHECK(cudaGetLastError());
    const std::vector<double> all = y_.to_host(y_.size(), s);
    for (std::size_t i = shape_.rows; i < all.size(); ++i) {
      if (all[i] != kGuardSentinel) {
        grading::hint("Threads past the last row must not write y.");
        return format_text("%s: wrote y[%zu], past the end", describe(shape_).c_str(), i);
      }
    }
    const std::vector<double> got(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(shape_.rows));
    const memlab::Comparison result = memlab::compare(got, expected_, tolerance());
    return result.ok() ? "" : describe(shape_) + ": " + result.describe("y");
  }

  /// GPU work that runs @p gemv on A in @p layout (for timing; y changes each run).
  memlab::Work work(lab5::Gemv gemv, lab5::Layout layout) {
    return [this, gemv, layout](cudaStream_t s) {
      gemv(shape_.rows, shape_.cols, kAlpha, matrix(layout), x_.data(), kBeta, y_.data(), s);
    };
  }

  /// A timed run of @p gemv that is checked: before it, a new x and a new y
  /// from the run's own seeds and y's guard zone poisoned with a new pattern;
  /// after it, the guard zone and 48 rows chosen after the run (the first and
  /// the last among them), each recomputed on the CPU. A run skipped, cached
  /// from an earlier x, or left unfinished fails.
  grading::CheckedWork checked(lab5::Gemv gemv, lab5::Layout layout) {
    struct Run {
      std::uint64_t x_seed = 0, y_seed = 0;
      std::uint32_t pattern = 0;
      std::mt19937_64 rows{grading::unpredictable_seed()};
    };
    auto run = std::make_shared<Run>();
    grading::CheckedWork checked;
    checked.prepare = [this, run]() {
      const cudaStream_t s = grading::stream();
      run->x_seed = grading::unpredictable_seed();
      run->y_seed = run->x_seed + 1;
      memlab::fill_random(x_.data(), shape_.cols, run->x_seed, -1.0, 1.0, s);
      memlab::fill_random(y_.data(), shape_.rows, run->y_seed, -1.0, 1.0, s);
      run->pattern = grading::poison(y_.data() + shape_.rows, memlab::kGuardElements * sizeof(double));
    };
    checked.work = work(gemv, layout);
    checked.verify = [this, run]() -> std::string {
      if (!grading::still_poisoned(y_.data() + shape_.rows, memlab::kGuardElements * sizeof(double), run->pattern)) {
        return format_text("%s: wrote y past its end", describe(shape_).c_str());
      }
      const std::vector<double> x = memlab::random_values<double>(shape_.cols, run->x_seed);
      constexpr int kRows = 48;
      const std::vector<std::size_t> rows = grading::sample_starts(shape_.rows, 1, kRows, run->rows);
      std::vector<double> got(rows.size()), expected(rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) {
        MEMLAB_CHECK(cudaMemcpy(&got[i], y_.data() + rows[i], sizeof(double), cudaMemcpyDeviceToHost));
      }
      memlab::parallel_for(rows.size(), [&](std::size_t i) {
        const std::size_t r = rows[i];
        expected[i] = exact_y(shape_.cols, seed(kMatrix), [&](std::size_t c) { return r * shape_.cols + c; }, x,
                              memlab::random_value<double>(run->y_seed, r, -1.0, 1.0));
      });
      const memlab::Comparison result = memlab::compare(got, expected, tolerance());
      if (result.ok()) return "";
      const std::size_t row = rows[result.first.front().index];
      return format_text("%s: y[%zu] = %.17g, expected %.17g", describe(shape_).c_str(), row,
                         got[result.first.front().index], expected[result.first.front().index]);
    };
    return checked;
  }

 private:
  memlab::Tolerance tolerance() const { return gemv_tolerance(shape_.cols); }

  enum Input : std::uint64_t { kMatrix = 1, kX = 2, kY = 3 };
  static constexpr double kGuardSentinel = 3.0;
  static std::uint64_t seed(Input input) { return grading::seed() * 4 + input; }

  void compute_expected() {
    expected_.assign(shape_.rows, 0.0);
    const std::vector<double> x = memlab::random_values<double>(shape_.cols, seed(kX));
    memlab::parallel_for(shape_.rows, [&](std::size_t r) {
      expected_[r] = exact_y(shape_.cols, seed(kMatrix), [&](std::size_t c) { return r * shape_.cols + c; }, x,
                             y_start_[r]);
    });
  }

  MatrixShape shape_;
  std::size_t count_;
  memlab::DeviceBuffer<double> row_major_, column_major_, x_, y_;
  std::vector<double> y_start_;
  std::vector<double> expected_;
};

/// One problem per shape, kept for the grader's run.
GemvProblem& problem(MatrixShape shape);

/// lab5.cuh takes sizes as std::size_t: runs @p gemv once on a
/// grading::kBeyond32Bits A in @p layout (2^32 + 131073 doubles, 34.4 GB) and
/// once on a grading::kTall one (2^27 + 33 rows), where the GPU has the memory,
/// and checks y's guard zone and 48 rows (the first and the last among them).
/// Element (r, c) is the random value of its place in @p layout's storage, so
/// one copy of A is enough. Returns what to add to the check's "measured" line
/// ("and 65537 x 65537, and 134217761 x 2", or why one was not checked); throws
/// what was wrong, with a hint set.
std::string check_large_shapes(lab5::Gemv gemv, lab5::Layout layout);

}  // namespace lab5::checks
