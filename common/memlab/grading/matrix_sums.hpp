/// @file matrix_sums.hpp
/// @brief Checking row and column sums of a matrix (labs 2 and 3): a seeded
/// random matrix on the GPU, the exact sums, and a check of every sum and of
/// the guard zone after them.
#pragma once

#include "memlab/device_random.cuh"
#include "memlab/grading/grader.hpp"
#include "memlab/report.hpp"
#include "memlab/resources.cuh"
#include "memlab/timing.cuh"
#include "memlab/verify.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace memlab::grading {

/// Which sums a function computes.
enum class SumAxis {
  rows,    ///< one sum per row
  columns  ///< one sum per column
};

/// The signature every sum function of labs 2 and 3 has:
/// (matrix, sums, rows, cols, stream), the matrix row-major.
template <typename T>
using MatrixSumFunction = void (*)(const T*, T*, std::size_t, std::size_t, cudaStream_t);

/// The square shape of the labs' timing checks: at least 8x L2 of float, so
/// every run streams the matrix from DRAM, and at least 16384 x 16384 (1 GiB),
/// so a warp-per-row kernel has enough rows for whole waves of blocks (on an
/// H200 at 11264 x 11264, 1.33 waves, float row sums lose 10% in the last,
/// partial wave; docs/measurements/lab2-3.md). At most 1/16 of the GPU's
/// memory, so a double matrix of the same shape fits too. The side is a
/// multiple of 256, so rows start on 128-byte lines.
inline MatrixShape timing_shape() {
  const DeviceFacts& gpu = device();
  const double bytes = static_cast<double>(std::min(
      std::max<std::size_t>(8 * gpu.l2_bytes, std::size_t{1} << 30), gpu.global_memory_bytes / 16));
  const auto side = static_cast<std::size_t>(std::floor(std::sqrt(bytes / sizeof(float)) / 256) * 256);
  return {side, side};
}

/// A matrix of seeded random values of type T, uniform in [-1, 1], on the GPU
/// with a guard zone after it, and a sums array with a guard zone after it;
/// both kept while the shape stays the same.
template <typename T>
class SumsWorkspace {
 public:
  /// Makes the matrix @p shape (new random values only if the shape changed).
  void prepare(MatrixShape shape) {
    if (!matrix_ || shape.rows != shape_.rows || shape.cols != shape_.cols) {
      matrix_.reset();  // free the old matrix first: device memory may be tight
      matrix_ = std::make_unique<DeviceBuffer<T>>(shape.rows * shape.cols + kGuardElements);
      fill_random(matrix_->data(), shape.rows * shape.cols, seed(), -1.0, 1.0, stream());
      shape_ = shape;
    }
    const std::size_t needed = std::max(shape.rows, shape.cols) + kGuardElements;
    if (!sums_ || sums_->size() < needed) sums_ = std::make_unique<DeviceBuffer<T>>(needed);
  }

  /// Bytes of the matrix.
  std::size_t matrix_bytes() const { return shape_.rows * shape_.cols * sizeof(T); }

  /// GPU work that runs @p function on the matrix (for timing).
  Work work(MatrixSumFunction<T> function) {
    return [this, function](cudaStream_t s) {
      function(matrix_->data(), sums_->data(), shape_.rows, shape_.cols, s);
    };
  }

  /// Runs @p function on the matrix and checks every sum along @p axis within
  /// summation_tolerance<T>, and that nothing was written past them. Returns
  /// what is wrong (empty if nothing) and sets the hint that fits.
  std::string check(MatrixSumFunction<T> function, SumAxis axis) {
    const std::size_t count = axis == SumAxis::rows ? shape_.rows : shape_.cols;
    const std::size_t terms = axis == SumAxis::rows ? shape_.cols : shape_.rows;
    const char* name = axis == SumAxis::rows ? "row" : "column";
    sums_->fill_bytes(kPoisonByte, stream());
    function(matrix_->data(), sums_->data(), shape_.rows, shape_.cols, stream());
    MEMLAB_CHECK(cudaStreamSynchronize(stream()));
    MEMLAB_CHECK(cudaGetLastError());

    const std::vector<T> all = sums_->to_host(count + kGuardElements, stream());
    if (const auto past_end = first_overwritten(all, count)) {
      hint(format_text("Threads past the last %s must not write: compare the index with the number of %ss "
                       "before the store.", name, name));
      return format_text("%s: wrote sums[%zu], past the end (%zu %ss)", describe(shape_).c_str(),
                         count + *past_end, count, name);
    }
    // Compared in T, not double: a poisoned (never written) T converted to
    // double is an ordinary NaN and would no longer be recognised as unwritten.
    // Rounding the exact sums to T moves them by far less than the tolerance.
    const std::vector<T> got(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count));
    const std::vector<double>& exact_sums = axis == SumAxis::rows ? exact().rows : exact().columns;
    const Comparison result = compare(got, std::vector<T>(exact_sums.begin(), exact_sums.end()),
                                      summation_tolerance<T>(terms));
    if (result.ok()) return "";
    if (result.unwritten == count) {
      hint("No sum was written: is the kernel launched, with at least one block, and does it store its sum?");
    } else if (result.unwritten == result.mismatches) {
      hint(format_text("Some sums were never written: the launch covers too few %ss. Launch enough threads "
                       "(or warps, or blocks) for every %s.", name, name));
    } else {
      hint("Element (r, c) is matrix[r * cols + c]. With rows != cols, a swapped index or a loop bound of "
           "the wrong length reads the wrong elements. The sums are checked to within the rounding of a "
           "sum in this type: an accumulator of a narrower type fails.");
    }
    return describe(shape_) + ": " + result.describe("sums");
  }

 private:
  // Exact row and column sums, computed on the host once per shape.
  const MatrixSums& exact() {
    const auto key = std::make_pair(shape_.rows, shape_.cols);
    auto found = exact_.find(key);
    if (found == exact_.end()) found = exact_.emplace(key, random_matrix_sums<T>(seed(), shape_)).first;
    return found->second;
  }

  std::unique_ptr<DeviceBuffer<T>> matrix_;
  std::unique_ptr<DeviceBuffer<T>> sums_;
  MatrixShape shape_;
  std::map<std::pair<std::size_t, std::size_t>, MatrixSums> exact_;
};

/// The grader's workspace for element type T, prepared for @p shape.
template <typename T>
SumsWorkspace<T>& sums_workspace(MatrixShape shape) {
  static SumsWorkspace<T> shared;
  shared.prepare(shape);
  return shared;
}

/// Checks @p function on each of @p shapes; returns the first problem (empty if none).
template <typename T>
std::string check_sums_on_shapes(MatrixSumFunction<T> function, SumAxis axis, const std::vector<MatrixShape>& shapes) {
  for (MatrixShape shape : shapes) {
    const std::string problem = sums_workspace<T>(shape).check(function, axis);
    if (!problem.empty()) return problem;
  }
  return "";
}

}  // namespace memlab::grading
