/// @file spread_rows.hpp
/// @brief Lab 3's grader, step 2: rows of positive floats spread over six
/// decades, where plain float accumulation loses many units of roundoff and a
/// compensated sum loses about one; and the timed runs of the compensated sums
/// on them, each run's sums checked to step 2's accuracy.
#pragma once

#include <memlab/grading/speed.hpp>
#include <memlab/random.hpp>
#include <memlab/resources.cuh>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>

#include <cuda_runtime.h>

namespace lab3::checks {

/// Step 2's rows are this long (8.4 million values in 64 rows for the accuracy
/// check). Summed warp per row, each lane then adds 4096 terms, and plain float
/// is off by 52-67 u on every row; at 32768 terms per row it is off by 1-8 u,
/// no more than a compensated sum (a simulation of both in float on the host).
inline constexpr std::size_t kSpreadCols = 131072;

/// The compensated sums must be within this many units of float's unit
/// roundoff (u = 2^-24) of the exact sum, relative, on every row. Kahan
/// summation is accurate to 2u plus terms of order n u^2; the lanes' partial
/// sums are then combined in a tree and rounded once more. Plain float
/// accumulation on these rows is off by dozens of u.
inline constexpr double kCompensatedUlps = 8.0;

/// Value @p index of the spread sequence @p seed: 10 to a power uniform in
/// [-3, 3], rounded to float; the same on the host and the GPU to within one
/// rounding of a term, which moves a row's sum by far less than a unit of it.
MEMLAB_HOST_DEVICE inline float spread_value(std::uint64_t seed, std::uint64_t index) {
  return static_cast<float>(std::pow(10.0, memlab::random_value<double>(seed, index, -3.0, 3.0)));
}

/// Writes values 0..@p count-1 of the spread sequence @p seed to @p data, on @p stream.
void fill_spread(float* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);

/// The row sum functions' signature: (matrix, sums, rows, cols, stream).
using RowSumFunction = void (*)(const float*, float*, std::size_t, std::size_t, cudaStream_t);

/// Step 2's timed matrix: kSpreadCols-long rows, as many as the labs' timing
/// matrix holds in bytes (2048 on an H100), with a guard zone after its sums.
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
  /// the guard zone untouched, every sum written, and 16 rows chosen after the
  /// run (the first and the last among them) within kCompensatedUlps of their
  /// exact sums, so the work timed is the accurate work.
  memlab::grading::CheckedWork checked(RowSumFunction function);

 private:
  std::size_t rows_;
  std::unique_ptr<memlab::DeviceBuffer<float>> matrix_;
  std::unique_ptr<memlab::DeviceBuffer<float>> sums_;
};

}  // namespace lab3::checks
