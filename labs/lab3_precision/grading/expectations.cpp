// Lab 3's expectations for this GPU (expectations.hpp).
#include "expectations.hpp"

#include <memlab/by_gpu.hpp>
#include <memlab/grading/grader.hpp>
#include <memlab/report.hpp>

namespace lab3::checks {

namespace grading = memlab::grading;
using memlab::format_text;

std::string expected_compute_ratio_text() {
  const memlab::DeviceFacts& gpu = grading::device();
  const auto ratio = memlab::by_gpu::fp32_per_fp64(gpu.major, gpu.minor);
  if (!ratio) {
    return format_text("this lab has no FP64 figure for compute capability %s: the measurement tells you",
                       gpu.compute_capability().c_str());
  }
  return format_text("compute capability %s does 1 FP64 operation per %d FP32 ones (%s), so about %dx",
                     gpu.compute_capability().c_str(), *ratio,
                     *ratio == 2 ? "a chip with one FP64 unit for every two FP32 units"
                                 : "a chip with few FP64 units, as on GeForce cards and on the T4, A10, L4 and L40S",
                     *ratio);
}

}  // namespace lab3::checks
