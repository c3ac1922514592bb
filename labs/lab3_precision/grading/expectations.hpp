/// @file expectations.hpp
/// @brief Lab 3's grader: what this GPU's FP64 rate should make of the double/float time ratio.
#pragma once

#include <optional>
#include <string>

namespace lab3::checks {

/// The ratio to expect on this GPU (memlab::by_gpu::fp32_per_fp64), in words, for the report.
std::string expected_compute_ratio_text();

}  // namespace lab3::checks
