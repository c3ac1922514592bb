/// @file verify.hpp
/// @brief Checking a kernel's output: seeded random inputs, poisoned outputs,
/// tolerant comparison and a report of the first mismatches.
///
/// Three habits make a correctness check trustworthy:
///  - inputs are random (seeded, so a failure can be reproduced), never zeros or
///    constants, which cannot tell a transposed index from the right one;
///  - outputs are poisoned before each run (every byte 0xFF: a NaN for float and
///    double), so an element the kernel never writes fails instead of keeping a
///    correct value from an earlier run;
///  - NaN and Inf never pass, whatever the tolerance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace memlab {

/// The byte written over every output before a run (see the file comment).
constexpr unsigned char kPoisonByte = 0xFF;

/// True if every byte of @p value is kPoisonByte, i.e. nothing wrote it.
template <typename T>
bool is_poison(const T& value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  for (unsigned char b : bytes) {
    if (b != kPoisonByte) return false;
  }
  return true;
}

/// An element passes when |got - expected| <= absolute + relative * |expected|.
struct Tolerance {
  double relative = 0.0;  ///< allowed error as a fraction of |expected|
  double absolute = 0.0;  ///< allowed error near zero, where a relative bound is meaningless
};

/// Default tolerance for one rounding step or a few in type @p T (float or double).
template <typename T>
Tolerance default_tolerance();

/// Tolerance for a sum of @p terms values, each uniform in [-magnitude, magnitude]
/// with mean zero, accumulated in type @p T in any order (one after another,
/// in a tree, through atomics).
///
/// Each addition rounds by at most u * |partial sum| (u = unit roundoff of T),
/// and for zero-mean random terms the partial sums stay near sqrt(k) * magnitude;
/// the rounding errors then add up to about 0.25 * u * terms * magnitude (one
/// standard deviation, one term after another). The tolerance is 4 * u * terms *
/// magnitude, some 16 standard deviations: a correct sum never fails it, while
/// a sum missing one term or accumulating in a narrower type does. Only valid
/// for zero-mean terms: when every term has the same sign, the partial sums
/// grow like k and so does their rounding error.
template <typename T>
Tolerance summation_tolerance(std::size_t terms, double magnitude = 1.0);

/// Rows and columns of a row-major matrix, so mismatches can be reported as (row, col).
struct MatrixShape {
  std::size_t rows = 0;  ///< number of rows
  std::size_t cols = 0;  ///< number of columns (elements per row)
};

/// "1000 x 37": @p shape for people, rows first.
inline std::string describe(MatrixShape shape) {
  return std::to_string(shape.rows) + " x " + std::to_string(shape.cols);
}

/// Exact sums of a matrix: one per row and one per column.
struct MatrixSums {
  std::vector<double> rows;     ///< rows[r] = sum over c of element (r, c)
  std::vector<double> columns;  ///< columns[c] = sum over r of element (r, c)
};

/// Row and column sums of the row-major matrix whose element (r, c) is
/// random_value<T>(seed, r * cols + c, low, high), i.e. what fill_random<T>()
/// writes on the GPU. Accumulated in long double, so for the sizes the labs use
/// the result is the exact sum rounded once to double.
template <typename T>
MatrixSums random_matrix_sums(std::uint64_t seed, MatrixShape shape, double low = -1.0,
                              double high = 1.0);

/// One element that failed the comparison.
struct Mismatch {
  std::size_t index = 0;     ///< position in the flat array
  std::size_t row = 0;       ///< row, when a MatrixShape was given
  std::size_t col = 0;       ///< column, when a MatrixShape was given
  double got = 0.0;          ///< the value the kernel left there
  double expected = 0.0;     ///< the reference value
  bool unwritten = false;    ///< still poisoned: nothing wrote this element
};

/// Result of compare(): counts and the first few mismatches.
struct Comparison {
  std::size_t checked = 0;          ///< elements compared
  std::size_t mismatches = 0;       ///< elements outside tolerance (NaN and Inf included)
  std::size_t unwritten = 0;        ///< mismatches that were never written
  std::vector<Mismatch> first;      ///< the first few mismatches, in index order
  std::optional<MatrixShape> shape; ///< set when positions are (row, col)

  /// True when every element passed.
  bool ok() const { return mismatches == 0; }
  /// A short, readable account, e.g.
  /// "c: 3 of 1000 elements wrong (3 never written); first: c[997] = never written, expected 0.25; ..."
  std::string describe(const std::string& name) const;
};

/// Compares @p got with @p expected element by element. Throws
/// std::invalid_argument if the sizes differ. Keeps at most @p max_reported
/// mismatches in Comparison::first.
template <typename T>
Comparison compare(const std::vector<T>& got, const std::vector<T>& expected, Tolerance tolerance,
                   std::optional<MatrixShape> shape = std::nullopt, std::size_t max_reported = 5);

/// Elements allocated after the end of every output the graders check: a write
/// there is out of bounds (see first_overwritten()).
constexpr std::size_t kGuardElements = 256;

/// Offset from @p from of the first element of @p values, at or after @p from,
/// that is no longer poisoned, if any. Used on an output downloaded with its
/// guard zone (@p from = the output's length) to catch writes out of bounds.
template <typename T>
std::optional<std::size_t> first_overwritten(const std::vector<T>& values, std::size_t from = 0);

/// Values 0..@p count-1 of the random sequence @p seed (random.hpp), uniform
/// between @p low and @p high: the same on every machine, and the same values
/// fill_random() writes on the GPU. Throws std::invalid_argument unless low < high.
template <typename T>
std::vector<T> random_values(std::size_t count, std::uint64_t seed, double low = -1.0,
                             double high = 1.0);

}  // namespace memlab
