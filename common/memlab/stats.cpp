#include "memlab/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace memlab {

double percentile(std::vector<double> values, double p) {
  if (values.empty()) throw std::invalid_argument("percentile of an empty set of samples");
  if (!(p >= 0.0 && p <= 100.0)) throw std::invalid_argument("percentile outside 0..100");
  for (double v : values) {
    if (!std::isfinite(v)) throw std::invalid_argument("sample is not finite: " + std::to_string(v));
  }
  std::sort(values.begin(), values.end());
  const double rank = p / 100.0 * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(rank));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = rank - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

double median(std::vector<double> values) { return percentile(std::move(values), 50.0); }

Summary summarize(const std::vector<double>& samples) {
  Summary s;
  s.count = samples.size();
  s.median = percentile(samples, 50.0);
  s.p10 = percentile(samples, 10.0);
  s.p90 = percentile(samples, 90.0);
  s.min = percentile(samples, 0.0);
  s.max = percentile(samples, 100.0);
  return s;
}

std::vector<double> pair_ratios(const std::vector<double>& numerators,
                                const std::vector<double>& denominators) {
  if (numerators.size() != denominators.size()) {
    throw std::invalid_argument("pair_ratios: " + std::to_string(numerators.size()) +
                                " numerators but " + std::to_string(denominators.size()) +
                                " denominators");
  }
  std::vector<double> ratios(numerators.size());
  for (std::size_t i = 0; i < ratios.size(); ++i) {
    if (!(denominators[i] > 0.0)) {
      throw std::invalid_argument("pair_ratios: denominator " + std::to_string(i) +
                                  " is not positive");
    }
    ratios[i] = numerators[i] / denominators[i];
  }
  return ratios;
}

double median_ratio(const std::vector<double>& numerators, const std::vector<double>& denominators) {
  return median(pair_ratios(numerators, denominators));
}

double worst_median_ratio(const std::vector<std::vector<double>>& first,
                          const std::vector<std::vector<double>>& second) {
  if (first.size() != second.size()) {
    throw std::invalid_argument("worst_median_ratio: " + std::to_string(first.size()) + " series against " +
                                std::to_string(second.size()));
  }
  double worst = 1.0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    const double ratio = median(first[i]) / median(second[i]);
    worst = std::max({worst, ratio, 1.0 / ratio});
  }
  return worst;
}

double RerunVerdict::best() const {
  if (attempts.empty()) throw std::logic_error("RerunVerdict::best: no attempts were made");
  return *std::min_element(attempts.begin(), attempts.end());
}

RerunVerdict judge_with_rerun(double limit, int max_attempts, const std::function<double()>& measure) {
  if (max_attempts < 1) throw std::invalid_argument("judge_with_rerun: max_attempts must be >= 1");
  RerunVerdict verdict;
  while (static_cast<int>(verdict.attempts.size()) < max_attempts) {
    verdict.attempts.push_back(measure());
    if (verdict.attempts.back() <= limit) {
      verdict.passed = true;
      break;
    }
  }
  return verdict;
}

}  // namespace memlab
