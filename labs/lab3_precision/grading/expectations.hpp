/// @file expectations.hpp
/// @brief Lab 3's grader: what this GPU's FP64 rate should make of the double/float time ratio.
#pragma once

#include <optional>
#include <string>

namespace lab3::checks {

/// FP32 results per FP64 result per SM per clock for compute capability
/// major.minor, from the arithmetic-instruction throughput table of the CUDA C++
/// Programming Guide. It follows the chip, not the market: GP100, GV100, GA100,
/// GH100 and B200 have one FP64 unit for every two FP32 units; the other chips,
/// data-centre cards such as the T4, A10, L4 and L40S among them, 1/32 or 1/64 as
/// many. Empty for a compute capability the table does not list here.
std::optional<int> fp32_per_fp64(int major, int minor);

/// The ratio to expect on this GPU, in words, for the report.
std::string expected_compute_ratio_text();

}  // namespace lab3::checks
