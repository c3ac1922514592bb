/// @file products.hpp
/// @brief Lab 4's grader: the operands, the right product, and checked timed runs.
///
/// What the checks in grader.cpp stand on: a, b and c on the GPU for each width
/// tried (c poisoned, with slack after it), the exact product computed on the
/// CPU in double up to width 1024 (the reference's tiled kernel above), and the
/// timed runs compare_speed() verifies one by one.
#pragma once

#include "lab4_api.hpp"

#include <memlab/grading/grader.hpp>
#include <memlab/grading/speed.hpp>

#include <functional>
#include <string>
#include <vector>

namespace lab4::checks {

/// One of the lab's multiply functions, or a reference's, with the tile fixed.
using Multiply = std::function<void(const float*, const float*, float*, int, cudaStream_t)>;

inline const lab4::Api& student() { return memlab::grading::student<lab4::Api>(); }
inline const lab4::Api& reference() { return memlab::grading::reference<lab4::Api>(); }

/// FLOPs of a width x width product, and the GFLOP/s of one done in @p ms.
inline double flops(int width) { return 2.0 * width * static_cast<double>(width) * width; }
inline double gflops(int width, double ms) { return memlab::gigaflops_per_second(flops(width), ms); }

/// Runs @p multiply at @p width and checks every element of c, and that nothing
/// after c was written. Returns "" if all is right, else what is wrong.
std::string check_product(const Multiply& multiply, int width);
/// check_product() at each of @p widths, up to the first problem.
std::string check_widths(const Multiply& multiply, const std::vector<int>& widths);
/// @p multiply on the operands of @p width, for timing.
memlab::Work work_of(const Multiply& multiply, int width);
/// A timed run of @p multiply that is checked (see products.cpp).
memlab::grading::CheckedWork checked_work(const Multiply& multiply, int width);
/// cuBLAS SGEMM's median time at @p width, full FP32, measured once.
double cublas_milliseconds(int width);

}  // namespace lab4::checks
