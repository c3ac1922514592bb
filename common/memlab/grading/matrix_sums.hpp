/// @file matrix_sums.hpp
/// @brief Checking row and column sums of a matrix (labs 2 and 3): a seeded
/// random matrix on the GPU, the exact sums, and a check of every sum and of
/// the guard zone after them; for the speed checks, timed runs that are
/// checked too (also the pieces lab 3's polynomial uses for its timed runs).
#pragma once

#include "memlab/by_gpu.hpp"
#include "memlab/device_random.cuh"
#include "memlab/grading/grader.hpp"
#include "memlab/grading/phases.hpp"
#include "memlab/grading/speed.hpp"
#include "memlab/parallel.hpp"
#include "memlab/random.hpp"
#include "memlab/report.hpp"
#include "memlab/resources.cuh"
#include "memlab/timing.cuh"
#include "memlab/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace memlab::grading {

// ---- Verifying a timed run from samples -------------------------------------

/// True if every 32-bit word of @p value is @p pattern, the poison() of the
/// run: nothing wrote it.
template <typename T>
bool holds_pattern(const T& value, std::uint32_t pattern) {
  static_assert(sizeof(T) % sizeof(std::uint32_t) == 0, "T must be made of 32-bit words");
  std::uint32_t words[sizeof(T) / sizeof(std::uint32_t)];
  std::memcpy(words, &value, sizeof(T));
  return std::all_of(std::begin(words), std::end(words), [pattern](std::uint32_t word) { return word == pattern; });
}

/// Compares sampled outputs @p got, elements @p indices of the output @p name,
/// with @p expected within @p tolerance, as compare() does. Returns "" or the
/// first wrong one: "sums[12] = never written, expected 3.5 (2 of 128 sampled
/// values wrong)", "never written" when it still holds the run's poison @p pattern.
template <typename T>
std::string wrong_sample(const char* name, const std::vector<std::size_t>& indices, const std::vector<T>& got,
                         const std::vector<T>& expected, Tolerance tolerance, std::uint32_t pattern) {
  const Comparison result = compare(got, expected, tolerance);
  if (result.ok()) return "";
  const Mismatch& first = result.first.front();
  const std::string value =
      holds_pattern(got[first.index], pattern) ? "never written" : format_text("%g", first.got);
  return format_text("%s[%zu] = %s, expected %g (%zu of %zu sampled values wrong)", name, indices[first.index],
                     value.c_str(), first.expected, result.mismatches, got.size());
}

/// After a checked run: the @p count sums at @p sums (a buffer with a guard
/// zone after them, poisoned with @p pattern before the run) read into @p all.
/// Returns "" if the guard zone still holds the pattern and every sum was
/// written; else what is wrong, after @p where: "2048 x 2048: 3 of 2048 row
/// sums never written, the first sums[7]" (@p name: "row" or "column").
template <typename T>
std::string read_every_sum(const DeviceBuffer<T>& sums, std::size_t count, std::uint32_t pattern,
                           const std::string& where, const char* name, std::vector<T>& all) {
  if (!still_poisoned(sums.data() + count, kGuardElements * sizeof(T), pattern)) {
    return format_text("%s: wrote past sums[%zu], the last of the %zu %s sums", where.c_str(), count - 1, count,
                       name);
  }
  all = sums.to_host(count, stream());
  const auto never_written = [pattern](const T& sum) { return holds_pattern(sum, pattern); };
  const auto first = std::find_if(all.begin(), all.end(), never_written);
  if (first == all.end()) return "";
  return format_text("%s: %zu of %zu %s sums never written, the first sums[%zu]", where.c_str(),
                     static_cast<std::size_t>(std::count_if(first, all.end(), never_written)), count, name,
                     static_cast<std::size_t>(first - all.begin()));
}

/// Which sums a function computes.
enum class SumAxis {
  rows,    ///< one sum per row
  columns  ///< one sum per column
};

/// The signature every sum function of labs 2 and 3 has:
/// (matrix, sums, rows, cols, stream), the matrix row-major.
template <typename T>
using MatrixSumFunction = void (*)(const T*, T*, std::size_t, std::size_t, cudaStream_t);

/// The square shape of the labs' timing checks on this GPU (memlab::by_gpu::sums_timing_side).
inline MatrixShape timing_shape() {
  const DeviceFacts& gpu = device();
  const std::size_t side = by_gpu::sums_timing_side(gpu.l2_bytes, gpu.global_memory_bytes);
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
      shape_ = shape;
      fill(seed());
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

  /// A timed run of @p function on the matrix that is checked (for
  /// compare_speed): before it, the matrix refilled with new random values in
  /// [-1, 1] and the sums and the guard zone after them poisoned with a new
  /// pattern; after it, the guard zone still poisoned, every sum along @p axis
  /// written, and chunks of sums at places chosen after the run (the first and
  /// last among them) within summation_tolerance<T> of their exact values.
  /// Each sampled sum costs the host one pass over its row or column, so the
  /// samples are kept to about 2^21 terms (16 chunks of 8 sums at 16384 x 16384,
  /// a few milliseconds on one core), spread over the cores.
  CheckedWork checked(MatrixSumFunction<T> function, SumAxis axis) {
    struct State {
      std::uint32_t pattern = 0;
      std::mt19937_64 places{unpredictable_seed()};
    };
    constexpr std::size_t kChunk = 8;
    constexpr std::size_t kSampledTerms = std::size_t{1} << 21;
    auto state = std::make_shared<State>();
    const std::size_t count = axis == SumAxis::rows ? shape_.rows : shape_.cols;
    const std::size_t terms = axis == SumAxis::rows ? shape_.cols : shape_.rows;
    const int chunks = static_cast<int>(std::clamp<std::size_t>(kSampledTerms / (kChunk * terms), 2, 64));
    CheckedWork run;
    run.prepare = [this, state, count]() {
      fill(unpredictable_seed());
      state->pattern = poison(sums_->data(), (count + kGuardElements) * sizeof(T));
    };
    run.work = work(function);
    run.verify = [this, state, axis, count, terms, chunks]() -> std::string {
      const char* name = axis == SumAxis::rows ? "row" : "column";
      std::vector<T> all;
      const std::string unwritten = read_every_sum(*sums_, count, state->pattern, describe(shape_), name, all);
      if (!unwritten.empty()) return unwritten;
      std::vector<std::size_t> sampled;
      for (std::size_t start : sample_starts(count, kChunk, chunks, state->places)) {
        for (std::size_t i = start; i < std::min(count, start + kChunk); ++i) sampled.push_back(i);
      }
      std::vector<T> got(sampled.size()), expected(sampled.size());
      parallel_for(sampled.size(), [&](std::size_t i) {
        got[i] = all[sampled[i]];
        expected[i] = static_cast<T>(exact_sum(axis, sampled[i]));
      });
      const std::string wrong =
          wrong_sample("sums", sampled, got, expected, summation_tolerance<T>(terms), state->pattern);
      return wrong.empty() ? "" : describe(shape_) + " " + name + " sums: " + wrong;
    };
    return run;
  }

  /// Runs @p function on the matrix and checks every sum along @p axis within
  /// summation_tolerance<T>, and that nothing was written past them. Returns
  /// what is wrong (empty if nothing) and sets the hint that fits.
  std::string check(MatrixSumFunction<T> function, SumAxis axis) {
    const std::size_t count = axis == SumAxis::rows ? shape_.rows : shape_.cols;
    const std::size_t terms = axis == SumAxis::rows ? shape_.cols : shape_.rows;
    const char* name = axis == SumAxis::rows ? "row" : "column";
    if (matrix_seed_ != seed()) fill(seed());  // a timed run's values: back to those exact() sums
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
  // The values the matrix holds: uniform in [-1, 1], as random_matrix_sums() assumes.
  static constexpr double kLow = -1.0;
  static constexpr double kHigh = 1.0;

  // New random values in the matrix, from @p fill_seed.
  void fill(std::uint64_t fill_seed) {
    fill_random(matrix_->data(), shape_.rows * shape_.cols, fill_seed, kLow, kHigh, stream());
    matrix_seed_ = fill_seed;
  }

  // The exact sum number @p index along @p axis of the matrix as filled now,
  // in long double (one row or column of the sums random_matrix_sums() makes).
  long double exact_sum(SumAxis axis, std::size_t index) const {
    long double sum = 0.0L;
    if (axis == SumAxis::rows) {
      for (std::size_t c = 0; c < shape_.cols; ++c) {
        sum += random_value<T>(matrix_seed_, index * shape_.cols + c, kLow, kHigh);
      }
    } else {
      for (std::size_t r = 0; r < shape_.rows; ++r) {
        sum += random_value<T>(matrix_seed_, r * shape_.cols + index, kLow, kHigh);
      }
    }
    return sum;
  }

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
  std::uint64_t matrix_seed_ = 0;  // the seed of the values the matrix holds
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

/// The tall matrix of check_sums_tall() for sums along @p axis: kTall for row
/// sums; for column sums 67108897 x 8, more chunks of up to 1024 rows than a
/// grid's y dimension holds (65535; red team 36 passed 16.8M rows with chunks
/// of 512), in 2 GB of float, whose eight columns the host's exact sums still
/// pass down in a few tenths of a second.
inline MatrixShape tall_shape(SumAxis axis) {
  return axis == SumAxis::rows ? kTall : MatrixShape{(std::size_t{1} << 26) + 33, 8};
}

/// Checks @p function along @p axis on a large @p shape of T, as a timed run is
/// checked (every sum written, the first, last and randomly placed chunks
/// exact within the tolerance), where the GPU has the memory. Returns what to
/// add to the check's "measured" line ("and 65537 x 65537", or why it was not
/// checked); throws what was wrong, after @p what ("past 2^32 elements"), with
/// @p advice as the hint.
template <typename T>
std::string check_sums_on_large(MatrixSumFunction<T> function, SumAxis axis, MatrixShape shape, const char* what,
                                const char* advice) {
  const Phase phase("sums_large");
  const std::size_t needed = (shape.rows * shape.cols + 2 * kGuardElements + std::max(shape.rows, shape.cols)) * sizeof(T);
  const std::string no_room = no_room_for(describe(shape) + " (" + what + ")", needed);
  if (!no_room.empty()) return no_room;
  SumsWorkspace<T> large;  // freed on return: the timed checks need the memory back
  large.prepare(shape);
  const CheckedWork run = large.checked(function, axis);
  run.prepare();
  run.work(stream());
  const std::string problem = run.verify();
  if (!problem.empty()) {
    hint(advice);
    throw std::runtime_error(format_text("%s: %s", what, problem.c_str()));
  }
  return "and " + describe(shape);
}

/// The labs' headers take sizes as std::size_t: checks @p function along @p axis
/// on a kBeyond32Bits matrix of T (17.2 GB of float) with check_sums_on_large().
template <typename T>
std::string check_sums_beyond_32_bits(MatrixSumFunction<T> function, SumAxis axis) {
  return check_sums_on_large(function, axis, kBeyond32Bits, "past 2^32 elements",
                             "Past 2^31 elements an offset held in an int wraps around (past 2^32, one in an "
                             "unsigned int): compute r * cols + c in std::size_t.");
}

/// The same on tall_shape(@p axis): more rows than 32-bit thread numbers of a
/// warp per row reach, or than a grid's y dimension holds chunks of rows.
template <typename T>
std::string check_sums_tall(MatrixSumFunction<T> function, SumAxis axis) {
  return check_sums_on_large(function, axis, tall_shape(axis), "a tall matrix",
                             "A grid's y and z dimensions hold at most 65535 blocks (x: 2^31 - 1), and a thread "
                             "number blockIdx.x * blockDim.x + threadIdx.x computed in unsigned int wraps past 2^32 "
                             "threads (a warp per row: past 2^27 rows). Put the rows (or the warps of rows) on x; "
                             "for column sums keep the tiles of columns on x and clamp the chunks of rows on y, "
                             "each block looping over its rows. Number rows in std::size_t.");
}

/// The wide matrices of check_sums_wide(): 2 x 67108897 and 2 x 67108896, more
/// tiles of up to 1024 columns (a block's most threads) than a grid's y
/// dimension holds (red team 36's tiles of 32 on grid y were wrong past
/// 2,097,120 columns; the widest shape checked before had 100001). Two widths,
/// odd and a multiple of 32, so that a path taken only for widths a vector load
/// divides is checked too (red team 37). 537 MB of float each.
inline const std::vector<MatrixShape> kWideForColumns = {{2, (std::size_t{1} << 26) + 33},
                                                         {2, (std::size_t{1} << 26) + 32}};

/// Column sums on each of kWideForColumns with check_sums_on_large(): more
/// columns than grid y holds tiles of them. Returns "and 2 x 67108897, and 2 x
/// 67108896" (or why one was not checked).
template <typename T>
std::string check_sums_wide(MatrixSumFunction<T> function) {
  std::string checked;
  for (MatrixShape shape : kWideForColumns) {
    checked += (checked.empty() ? "" : ", ") +
               check_sums_on_large(function, SumAxis::columns, shape, "a wide matrix",
                                   "A grid's y and z dimensions hold at most 65535 blocks (x: 2^31 - 1): put the "
                                   "tiles of columns on x, and where the chunks of rows need more than 65535 blocks "
                                   "too, clamp them on y and let each block loop over its rows; number columns in "
                                   "std::size_t.");
  }
  return checked;
}

/// Whether check_sums_large() runs check_sums_tall(): not for a thread per
/// column, where a few threads would each read for seconds.
enum class Tall { checked, not_checked };

/// The checks of the headers' std::size_t sizes, in this order:
/// check_sums_beyond_32_bits(), check_sums_tall() (unless @p tall says not),
/// and for column sums check_sums_wide(). Returns "and 65537 x 65537, and
/// 134217761 x 2" and so on, for the check's "measured" line.
template <typename T>
std::string check_sums_large(MatrixSumFunction<T> function, SumAxis axis, Tall tall = Tall::checked) {
  std::string checked = check_sums_beyond_32_bits(function, axis);
  if (tall == Tall::checked) checked += ", " + check_sums_tall(function, axis);
  if (axis == SumAxis::columns) checked += ", " + check_sums_wide(function);
  return checked;
}

}  // namespace memlab::grading
