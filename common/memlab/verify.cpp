#include "memlab/verify.hpp"

#include "memlab/parallel.hpp"
#include "memlab/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace memlab {

template <>
Tolerance default_tolerance<float>() {
  return {1e-5, 1e-6};
}
template <>
Tolerance default_tolerance<double>() {
  return {1e-12, 1e-14};
}

template <typename T>
Tolerance summation_tolerance(std::size_t terms, double magnitude) {
  const double unit_roundoff = std::numeric_limits<T>::epsilon() / 2;
  const double bound = 4 * unit_roundoff * static_cast<double>(terms) * magnitude;
  return {0.0, bound};
}

template <typename T>
MatrixSums random_matrix_sums(std::uint64_t seed, MatrixShape shape, double low, double high) {
  if (!(low < high)) throw std::invalid_argument("random_matrix_sums: need low < high");
  // A 16384 x 16384 matrix takes seconds on one core, and graders ask for it
  // often: each core takes a band of rows and keeps its own column sums, which
  // are added up at the end in band order, so the result does not depend on timing.
  std::vector<long double> rows(shape.rows, 0.0L);
  const Ranges bands = ranges_of(shape.rows, 64);
  std::vector<std::vector<long double>> band_columns(bands.number(), std::vector<long double>(shape.cols, 0.0L));
  parallel_ranges(bands, [&](std::size_t band, std::size_t first_row, std::size_t end_row) {
    std::vector<long double>& columns = band_columns[band];
    for (std::size_t r = first_row; r < end_row; ++r) {
      long double row = 0.0L;
      for (std::size_t c = 0; c < shape.cols; ++c) {
        const long double x = random_value<T>(seed, r * shape.cols + c, low, high);
        row += x;
        columns[c] += x;
      }
      rows[r] = row;
    }
  });
  MatrixSums sums;
  sums.rows.assign(rows.begin(), rows.end());
  sums.columns.assign(shape.cols, 0.0);
  for (std::size_t c = 0; c < shape.cols; ++c) {
    long double column = 0.0L;
    for (const std::vector<long double>& band : band_columns) column += band[c];
    sums.columns[c] = static_cast<double>(column);
  }
  return sums;
}

namespace {

bool within(double got, double expected, Tolerance tolerance) {
  if (!std::isfinite(got) || !std::isfinite(expected)) return false;
  return std::fabs(got - expected) <= tolerance.absolute + tolerance.relative * std::fabs(expected);
}

}  // namespace

std::string Comparison::describe(const std::string& name) const {
  std::ostringstream out;
  if (ok()) {
    out << name << ": all " << checked << " elements correct";
    return out.str();
  }
  out << name << ": " << mismatches << " of " << checked << " elements wrong";
  if (unwritten > 0) out << " (" << unwritten << " never written)";
  out << "; first:";
  const char* separator = " ";
  for (const Mismatch& m : first) {
    out << separator << name << "[" << m.index << "]";
    if (shape) out << " (row " << m.row << ", col " << m.col << ")";
    out << " = ";
    if (m.unwritten) {
      out << "never written";
    } else {
      out << m.got;
    }
    out << ", expected " << m.expected;
    separator = "; ";
  }
  return out.str();
}

template <typename T>
Comparison compare(const std::vector<T>& got, const std::vector<T>& expected, Tolerance tolerance,
                   std::optional<MatrixShape> shape, std::size_t max_reported) {
  if (got.size() != expected.size()) {
    throw std::invalid_argument("compare: output has " + std::to_string(got.size()) +
                                " elements, reference has " + std::to_string(expected.size()));
  }
  if (shape && shape->rows * shape->cols != got.size()) {
    throw std::invalid_argument("compare: a " + std::to_string(shape->rows) + " x " +
                                std::to_string(shape->cols) + " matrix does not have " +
                                std::to_string(got.size()) + " elements");
  }
  // Each range of elements is compared on its own core; the ranges' results are then
  // joined in element order, so the result is the one a single pass would give.
  const Ranges ranges = ranges_of(got.size());
  std::vector<Comparison> parts(ranges.number());
  parallel_ranges(ranges, [&](std::size_t r, std::size_t begin, std::size_t end) {
    Comparison& part = parts[r];
    for (std::size_t i = begin; i < end; ++i) {
      const double g = static_cast<double>(got[i]);
      const double e = static_cast<double>(expected[i]);
      if (within(g, e, tolerance)) continue;
      const bool unwritten = is_poison(got[i]);
      ++part.mismatches;
      if (unwritten) ++part.unwritten;
      if (part.first.size() < max_reported) {
        Mismatch m;
        m.index = i;
        if (shape) {
          m.row = i / shape->cols;
          m.col = i % shape->cols;
        }
        m.got = g;
        m.expected = e;
        m.unwritten = unwritten;
        part.first.push_back(m);
      }
    }
  });
  Comparison result;
  result.checked = got.size();
  result.shape = shape;
  for (const Comparison& part : parts) {
    result.mismatches += part.mismatches;
    result.unwritten += part.unwritten;
    for (const Mismatch& m : part.first) {
      if (result.first.size() < max_reported) result.first.push_back(m);
    }
  }
  return result;
}

template <typename T>
std::optional<std::size_t> first_overwritten(const std::vector<T>& values, std::size_t from) {
  for (std::size_t i = from; i < values.size(); ++i) {
    if (!is_poison(values[i])) return i - from;
  }
  return std::nullopt;
}

template <typename T>
std::vector<T> random_values(std::size_t count, std::uint64_t seed, double low, double high) {
  if (!(low < high)) throw std::invalid_argument("random_values: need low < high");
  std::vector<T> values(count);
  parallel_ranges(count, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) values[i] = random_value<T>(seed, i, low, high);
  });
  return values;
}

template Comparison compare<float>(const std::vector<float>&, const std::vector<float>&, Tolerance,
                                   std::optional<MatrixShape>, std::size_t);
template Comparison compare<double>(const std::vector<double>&, const std::vector<double>&,
                                    Tolerance, std::optional<MatrixShape>, std::size_t);
template std::optional<std::size_t> first_overwritten<float>(const std::vector<float>&, std::size_t);
template std::optional<std::size_t> first_overwritten<double>(const std::vector<double>&, std::size_t);
template Tolerance summation_tolerance<float>(std::size_t, double);
template Tolerance summation_tolerance<double>(std::size_t, double);
template MatrixSums random_matrix_sums<float>(std::uint64_t, MatrixShape, double, double);
template MatrixSums random_matrix_sums<double>(std::uint64_t, MatrixShape, double, double);
template std::vector<float> random_values<float>(std::size_t, std::uint64_t, double, double);
template std::vector<double> random_values<double>(std::size_t, std::uint64_t, double, double);

}  // namespace memlab
