// Lab 5's problems, one per shape (problem.hpp).
#include "problem.hpp"

#include <map>
#include <memory>
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

}  // namespace lab5::checks
