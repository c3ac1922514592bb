// Lab 3's grader, step 2's rows and timed runs (spread_rows.hpp).
#include "spread_rows.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/grading/grader.hpp>
#include <memlab/grading/matrix_sums.hpp>
#include <memlab/parallel.hpp>
#include <memlab/report.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace lab3::checks {

namespace grading = memlab::grading;
using memlab::format_text;

namespace {

__global__ void fill_step2_rows_kernel(float* data, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    data[i] = step2_value(seed, i / kSpreadCols, i % kSpreadCols);
  }
}

const char* kind_of(std::size_t row) { return row % 2 == 0 ? "spread" : "mixed"; }

}  // namespace

double error_in_u(double got, long double exact) {
  const double error =
      static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / std::fabs(exact)) / kUnitRoundoff;
  return std::isfinite(error) ? error : std::numeric_limits<double>::infinity();
}

KindErrors errors_of_kind(const std::vector<double>& ulps, const std::vector<std::size_t>& rows, std::size_t kind) {
  std::vector<double> of_kind;
  for (std::size_t i = 0; i < ulps.size(); ++i) {
    if (rows[i] % 2 == kind) of_kind.push_back(ulps[i]);
  }
  if (of_kind.empty()) return {};
  std::sort(of_kind.begin(), of_kind.end());
  return {of_kind.back(), of_kind[of_kind.size() / 2], of_kind.size()};
}

std::string accuracy_problem(const std::vector<double>& ulps, const std::vector<std::size_t>& rows,
                             double median_ulps) {
  for (std::size_t i = 0; i < ulps.size(); ++i) {
    if (!(ulps[i] <= kWorstRowUlps)) {
      return format_text("row %zu (%s) is off by %.1f u; no row may be off by more than %.0f u", rows[i],
                         kind_of(rows[i]), ulps[i], kWorstRowUlps);
    }
  }
  for (std::size_t kind = 0; kind < 2; ++kind) {
    const KindErrors errors = errors_of_kind(ulps, rows, kind);
    if (errors.rows > 0 && errors.median > median_ulps) {
      return format_text("%s rows: the median row is off by %.1f u, more than %.0f u", kind_of(kind), errors.median,
                         median_ulps);
    }
  }
  return "";
}

long double exact_row_sum(std::uint64_t seed, std::size_t row) {
  long double sum = 0.0L;
  for (std::size_t c = 0; c < kSpreadCols; ++c) sum += step2_value(seed, row, c);
  return sum;
}

void fill_step2_rows(float* data, std::size_t rows, std::uint64_t seed, cudaStream_t stream) {
  fill_step2_rows_kernel<<<1024, 256, 0, stream>>>(data, rows * kSpreadCols, seed);
  MEMLAB_CHECK(cudaGetLastError());
}

SpreadRows::SpreadRows() {
  const memlab::MatrixShape timing = grading::timing_shape();
  rows_ = std::max<std::size_t>(64, timing.rows * timing.cols / kSpreadCols / 2 * 2);
  matrix_ = std::make_unique<memlab::DeviceBuffer<float>>(rows_ * kSpreadCols);
  sums_ = std::make_unique<memlab::DeviceBuffer<float>>(rows_ + memlab::kGuardElements);
}

grading::CheckedWork SpreadRows::checked(RowSumFunction function) {
  struct State {
    std::uint64_t seed = 0;
    std::uint32_t pattern = 0;
    std::mt19937_64 places{grading::unpredictable_seed()};
  };
  constexpr int kSampledPairs = 8;  // 2 million terms: a few milliseconds over the host's cores
  auto state = std::make_shared<State>();
  grading::CheckedWork run;
  run.prepare = [this, state]() {
    state->seed = grading::unpredictable_seed();
    fill_step2_rows(matrix_->data(), rows_, state->seed, grading::stream());
    state->pattern = grading::poison(sums_->data(), sums_->bytes());
  };
  run.work = [this, function](cudaStream_t s) { function(matrix_->data(), sums_->data(), rows_, kSpreadCols, s); };
  run.verify = [this, state]() -> std::string {
    const std::string shape = format_text("%zu rows of %zu values", rows_, kSpreadCols);
    std::vector<float> all;
    const std::string unwritten = grading::read_every_sum(*sums_, rows_, state->pattern, shape, "row", all);
    if (!unwritten.empty()) return unwritten;
    // Pairs of rows (one of each kind), the first and the last pair among them.
    std::vector<std::size_t> sampled;
    for (std::size_t pair : grading::sample_starts(rows_ / 2, 1, kSampledPairs, state->places)) {
      sampled.push_back(2 * pair);
      sampled.push_back(2 * pair + 1);
    }
    std::vector<double> ulps(sampled.size());
    memlab::parallel_for(sampled.size(), [&](std::size_t i) {
      ulps[i] = error_in_u(all[sampled[i]], exact_row_sum(state->seed, sampled[i]));
    });
    const std::string problem = accuracy_problem(ulps, sampled, 1.5 * kMedianUlps);
    return problem.empty() ? "" : shape + ": " + problem + " (a timed run must be as accurate as step 2 asks)";
  };
  return run;
}

}  // namespace lab3::checks
