// Lab 3's grader, step 2's timed rows (spread_rows.hpp).
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

__global__ void fill_spread_kernel(float* data, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    data[i] = spread_value(seed, i);
  }
}

long double exact_row_sum(std::uint64_t seed, std::size_t row) {
  long double sum = 0.0L;
  for (std::size_t c = 0; c < kSpreadCols; ++c) sum += spread_value(seed, row * kSpreadCols + c);
  return sum;
}

}  // namespace

void fill_spread(float* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  fill_spread_kernel<<<1024, 256, 0, stream>>>(data, count, seed);
  MEMLAB_CHECK(cudaGetLastError());
}

SpreadRows::SpreadRows() {
  const memlab::MatrixShape timing = grading::timing_shape();
  rows_ = std::max<std::size_t>(64, timing.rows * timing.cols / kSpreadCols);
  matrix_ = std::make_unique<memlab::DeviceBuffer<float>>(rows_ * kSpreadCols);
  sums_ = std::make_unique<memlab::DeviceBuffer<float>>(rows_ + memlab::kGuardElements);
}

grading::CheckedWork SpreadRows::checked(RowSumFunction function) {
  struct State {
    std::uint64_t seed = 0;
    std::uint32_t pattern = 0;
    std::mt19937_64 places{grading::unpredictable_seed()};
  };
  constexpr int kSampledRows = 16;  // 2 million terms: a few milliseconds over the host's cores
  auto state = std::make_shared<State>();
  grading::CheckedWork run;
  run.prepare = [this, state]() {
    state->seed = grading::unpredictable_seed();
    fill_spread(matrix_->data(), rows_ * kSpreadCols, state->seed, grading::stream());
    state->pattern = grading::poison(sums_->data(), sums_->bytes());
  };
  run.work = [this, function](cudaStream_t s) { function(matrix_->data(), sums_->data(), rows_, kSpreadCols, s); };
  run.verify = [this, state]() -> std::string {
    const std::string shape = format_text("%zu x %zu spread values", rows_, kSpreadCols);
    if (!grading::still_poisoned(sums_->data() + rows_, memlab::kGuardElements * sizeof(float), state->pattern)) {
      return format_text("%s: wrote past sums[%zu], the last row's sum", shape.c_str(), rows_ - 1);
    }
    const std::vector<float> all = sums_->to_host(rows_, grading::stream());
    const auto never_written = [state](float sum) { return grading::holds_pattern(sum, state->pattern); };
    const auto first = std::find_if(all.begin(), all.end(), never_written);
    if (first != all.end()) {
      return format_text("%s: %zu of %zu row sums never written, the first sums[%zu]", shape.c_str(),
                         static_cast<std::size_t>(std::count_if(first, all.end(), never_written)), rows_,
                         static_cast<std::size_t>(first - all.begin()));
    }
    const std::vector<std::size_t> sampled = grading::sample_starts(rows_, 1, kSampledRows, state->places);
    std::vector<double> ulps(sampled.size());
    const double u = std::numeric_limits<float>::epsilon() / 2;
    memlab::parallel_for(sampled.size(), [&](std::size_t i) {
      const long double exact = exact_row_sum(state->seed, sampled[i]);
      const double error = static_cast<double>(std::fabs((all[sampled[i]] - exact) / exact)) / u;
      ulps[i] = std::isfinite(error) ? error : std::numeric_limits<double>::infinity();
    });
    const auto worst = std::max_element(ulps.begin(), ulps.end());
    if (*worst <= kCompensatedUlps) return "";
    const std::size_t row = sampled[static_cast<std::size_t>(worst - ulps.begin())];
    return format_text("%s: sums[%zu] = %.9g is off by %.1f u of the exact sum (the limit is %.0f u): a timed run "
                       "must be as accurate as the accuracy check",
                       shape.c_str(), row, all[row], *worst, kCompensatedUlps);
  };
  return run;
}

}  // namespace lab3::checks
