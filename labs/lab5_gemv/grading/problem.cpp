// Lab 5's problems, one per shape (problem.hpp).
#include "problem.hpp"

#include <memlab/grading/phases.hpp>

#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

namespace lab5::checks {

// One problem per shape, kept for the grader's run; the timing one stays, the
// small ones are cheap.
GemvProblem& problem(MatrixShape shape) {
  static std::map<std::pair<std::size_t, std::size_t>, std::unique_ptr<GemvProblem>> problems;
  auto& slot = problems[{shape.rows, shape.cols}];
  if (!slot) slot = std::make_unique<GemvProblem>(shape);
  return *slot;
}

namespace {

// Runs @p gemv once on a large A of @p shape in @p layout and checks y's guard
// zone and 48 rows (the first and the last among them), each read alone: y of
// the tall shape is 1 GB. Returns "and <shape>", or why it was not checked
// ("<shape> (<what>) not checked: ..."); throws what was wrong, with @p advice
// as the hint.
std::string check_large_shape(lab5::Gemv gemv, lab5::Layout layout, MatrixShape shape, const char* what,
                              const char* advice) {
  const grading::Phase phase("lab5_large");
  const std::size_t count = shape.rows * shape.cols;
  const std::size_t needed = (count + shape.rows + shape.cols + 3 * memlab::kGuardElements) * sizeof(double);
  const std::string no_room = grading::no_room_for(describe(shape) + " (" + what + ")", needed);
  if (!no_room.empty()) return no_room;
  const cudaStream_t s = grading::stream();
  const std::uint64_t seed = grading::unpredictable_seed();
  memlab::DeviceBuffer<double> a(count + memlab::kGuardElements), x(shape.cols + memlab::kGuardElements),
      y(shape.rows + memlab::kGuardElements);
  for (auto* buffer : {&a, &x}) buffer->fill_bytes(memlab::kPoisonByte, s);  // NaN past the ends
  memlab::fill_random(a.data(), count, seed, -1.0, 1.0, s);
  memlab::fill_random(x.data(), shape.cols, seed + 1, -1.0, 1.0, s);
  memlab::fill_random(y.data(), shape.rows, seed + 2, -1.0, 1.0, s);
  const std::uint32_t pattern = grading::poison(y.data() + shape.rows, memlab::kGuardElements * sizeof(double));
  gemv(shape.rows, shape.cols, kAlpha, a.data(), x.data(), kBeta, y.data(), s);
  MEMLAB_CHECK(cudaStreamSynchronize(s));
  MEMLAB_CHECK(cudaGetLastError());

  std::string problem;
  if (!grading::still_poisoned(y.data() + shape.rows, memlab::kGuardElements * sizeof(double), pattern)) {
    problem = "wrote y past its end";
  } else {
    std::mt19937_64 places(grading::unpredictable_seed());
    const std::vector<std::size_t> rows = grading::sample_starts(shape.rows, 1, 48, places);
    std::vector<double> got(rows.size()), expected(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      MEMLAB_CHECK(cudaMemcpyAsync(&got[i], y.data() + rows[i], sizeof(double), cudaMemcpyDeviceToHost, s));
    }
    MEMLAB_CHECK(cudaStreamSynchronize(s));
    const std::vector<double> x_values = memlab::random_values<double>(shape.cols, seed + 1);
    const bool row_major = layout == lab5::Layout::row_major;
    memlab::parallel_for(rows.size(), [&](std::size_t i) {
      const std::size_t r = rows[i];
      const auto place = [&](std::size_t c) { return row_major ? r * shape.cols + c : c * shape.rows + r; };
      expected[i] = exact_y(shape.cols, seed, place, x_values, memlab::random_value<double>(seed + 2, r, -1.0, 1.0));
    });
    const memlab::Comparison result = memlab::compare(got, expected, gemv_tolerance(shape.cols));
    if (!result.ok()) {
      const std::size_t i = result.first.front().index;
      problem = format_text("y[%zu] = %.17g, expected %.17g", rows[i], got[i], expected[i]);
    }
  }
  if (!problem.empty()) {
    grading::hint(advice);
    throw std::runtime_error(format_text("%s (%s): %s", describe(shape).c_str(), what, problem.c_str()));
  }
  return "and " + describe(shape);
}

}  // namespace

std::string check_large_shapes(lab5::Gemv gemv, lab5::Layout layout) {
  const std::string square = check_large_shape(  // first: a statement of its own
      gemv, layout, grading::kBeyond32Bits, "past 2^32 elements",
      "Past 2^31 elements an offset held in an int wraps around (past 2^32, one in an unsigned int): compute "
      "r * cols + c and c * rows + r in std::size_t.");
  return square + ", " +
         check_large_shape(gemv, layout, grading::kTall, "a tall matrix",
                           "A grid's y and z dimensions hold at most 65535 blocks (x: 2^31 - 1), and a thread number "
                           "blockIdx.x * blockDim.x + threadIdx.x computed in unsigned int wraps past 2^32 threads (a "
                           "warp per row: past 2^27 rows). Number rows along x, in std::size_t.");
}

}  // namespace lab5::checks
