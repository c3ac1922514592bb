/// @file spread_rows.hpp
/// @brief Lab 3's grader, step 2: rows on which plain float accumulation loses
/// many units of roundoff and a compensated sum about one, the rule that judges
/// a sum's accuracy on them, and the timed runs of the compensated sums, each
/// run's sums checked to that rule.
#pragma once

#include <memlab/grading/speed.hpp>
#include <memlab/random.hpp>
#include <memlab/resources.cuh>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace lab3::checks {

/// Step 2's rows are this long (about ten million values in the accuracy check's rows).
inline constexpr std::size_t kSpreadCols = 131072;

/// Mixes the seed that picks each mixed row's scale (step2_value).
inline constexpr std::uint64_t kRowScaleSalt = 0x9e3779b97f4a7c15ULL;

/// Value @p col of row @p row of step 2's matrix from @p seed. Rows alternate
/// between two kinds, each of which plain float accumulation gets wrong:
/// - even rows, "spread": 10 to a power uniform in [-3, 3]. Summed warp per
///   row, each lane adds 4096 terms, and plain float is off by 52-67 u (at
///   32768 terms per row, 1-8 u); a compensated sum by under 2 u;
/// - odd rows, "mixed": a thousandth of the terms 10^4 to 2x10^4, the rest
///   3e-4 to 4.8e-4. Once a partial sum holds a large term, each small term is
///   under half its unit in the last place and vanishes, so plain float is off
///   by 23 u or more however the row is split among up to 1024 partial sums;
///   the compensated sums of the guide's two ways by under 2 u (red team 20's
///   simulations, `grader/corpus/red-team/round20/sim_mixed_rows.cpp`).
///   Each mixed row is then scaled by its own power of two, 2^0 to 2^-40: a
///   sum's roundings scale with it exactly, so every way of adding keeps its
///   error in u, but no fixed threshold tells the large terms from the small
///   (red team 22 added the terms below 1 and the rest apart, in plain float).
/// The host and the GPU compute the same floats to within one rounding of a
/// term, which moves a row's sum by far less than a unit of it.
MEMLAB_HOST_DEVICE inline float step2_value(std::uint64_t seed, std::size_t row, std::size_t col) {
  const std::uint64_t index = row * kSpreadCols + col;
  if (row % 2 == 0) return static_cast<float>(std::pow(10.0, memlab::random_value<double>(seed, index, -3.0, 3.0)));
  const double pick = memlab::random_value<double>(seed, index, 0.0, 1.0);
  const double size = memlab::random_value<double>(~seed, index, 0.0, 1.0);
  const double value = pick < 1e-3 ? 1e4 * std::pow(10.0, 0.3 * size) : 3e-4 + 1.8e-4 * size;
  const auto halvings = static_cast<unsigned>(memlab::random_value<double>(seed ^ kRowScaleSalt, row, 0.0, 41.0));
  // Exact: the smallest term, 3e-4 x 2^-40, is still a normal float.
  return static_cast<float>(value / static_cast<double>(std::uint64_t{1} << (halvings > 40 ? 40 : halvings)));
}

/// The compensated sums' accuracy, in units of float's roundoff (u = 2^-24) of
/// each row's exact sum, relative: the median row of each kind within
/// kMedianUlps, and every row within kWorstRowUlps. A Kahan sum per thread is
/// within 2 u; the partial sums are then combined in float, and 128 of them
/// added in any order (atomics) leave a few mixed rows at 10-16 u, while plain
/// float split among up to 1024 partial sums leaves every mixed row past 20 u.
/// The median asks for what compensation gives; the worst row, that no row is
/// left wrong.
inline constexpr double kMedianUlps = 8.0;
/// See kMedianUlps.
inline constexpr double kWorstRowUlps = 32.0;

/// Float's unit roundoff, u = 2^-24: the most one rounding can lose, relative.
inline constexpr double kUnitRoundoff = std::numeric_limits<float>::epsilon() / 2;

/// A row sum's error relative to its exact sum, in u (infinity where not finite).
double error_in_u(double got, long double exact);

/// The errors of the rows of one kind among some rows.
struct KindErrors {
  double worst = 0.0;       ///< in u
  double median = 0.0;      ///< in u
  std::size_t rows = 0;     ///< how many rows of the kind there were (0: none, and no figures)
};
/// Of @p ulps (in u; @p rows the row each belongs to), those of the rows of
/// @p kind (0: spread, the even rows; 1: mixed, the odd rows).
KindErrors errors_of_kind(const std::vector<double>& ulps, const std::vector<std::size_t>& rows, std::size_t kind);

/// "" if the rows' errors @p ulps (in u; @p rows the row each belongs to)
/// meet kWorstRowUlps and, in each kind, a median within @p median_ulps; else
/// what is wrong, for people ("mixed rows: the median row is off by 27.7 u").
std::string accuracy_problem(const std::vector<double>& ulps, const std::vector<std::size_t>& rows,
                             double median_ulps = kMedianUlps);

/// The exact sum of row @p row of step 2's matrix from @p seed.
long double exact_row_sum(std::uint64_t seed, std::size_t row);

/// Writes rows 0..@p rows-1 of step 2's matrix from @p seed to @p data, on @p stream.
void fill_step2_rows(float* data, std::size_t rows, std::uint64_t seed, cudaStream_t stream);

/// The row sum functions' signature: (matrix, sums, rows, cols, stream).
using RowSumFunction = void (*)(const float*, float*, std::size_t, std::size_t, cudaStream_t);

/// Step 2's timed matrix: kSpreadCols-long rows of both kinds, as many as the
/// labs' timing matrix holds in bytes (2048 on an H100), with a guard zone
/// after its sums.
class SpreadRows {
 public:
  SpreadRows();
  /// Bytes of the matrix: what one run reads.
  double matrix_bytes() const { return static_cast<double>(rows_ * kSpreadCols * sizeof(float)); }
  /// Rows of the matrix.
  std::size_t rows() const { return rows_; }
  /// A timed run of @p function on the matrix that is checked (for
  /// compare_speed): before it, new values from a seed no code can know in
  /// advance, and the sums and the guard zone after them poisoned; after it,
  /// the guard zone untouched, every sum written, and 8 rows of each kind
  /// chosen after the run (the first and the last among them) as accurate as
  /// accuracy_problem() asks, with the median's bound half as large again (a
  /// median of 8 rows varies more than one of 64): the work timed is the
  /// accurate work.
  memlab::grading::CheckedWork checked(RowSumFunction function);

 private:
  std::size_t rows_;
  std::unique_ptr<memlab::DeviceBuffer<float>> matrix_;
  std::unique_ptr<memlab::DeviceBuffer<float>> sums_;
};

}  // namespace lab3::checks
