/// @file notes.hpp
/// @brief Lab 4's grader: what its checks explain beside their verdicts (the
/// roofline file and prose, step 4's occupancy table, step 5's table of bugs).
#pragma once

#include "lab4.cuh"
#include "seed_bugs.hpp"

#include <cuda_runtime.h>

#include <functional>
#include <string>

namespace lab4::checks {

/// One kernel on the roofline plot: FLOPs per byte its threads ask global memory
/// for, and the GFLOP/s it reached.
struct RooflinePoint {
  std::string kernel;
  double intensity;
  double gflops;
  int width;
};

/// Rewrites roofline.csv with @p point added (replacing an earlier point of the
/// same kernel), so the plot shows every kernel timed so far.
void add_to_roofline(const RooflinePoint& point);
/// Where @p intensity (FLOP per byte) meets the roofs, in words for the report.
std::string roofline_text(const std::string& kernel, double intensity, double achieved);

/// This GPU's properties, read once.
const cudaDeviceProp& device_properties();
/// Step 4's note: for tiles of 8, 16 and 32, how many blocks of the dynamic
/// kernel one SM holds, which limit decides it, and the GFLOP/s that
/// @p dynamic_gflops measures at that tile; then the step 2 kernel's
/// (@p compiled_in_gflops, measured last) beside the fastest of them.
std::string occupancy_report(int width, const std::function<double(int tile)>& dynamic_gflops,
                             const std::function<double()>& compiled_in_gflops);

/// The notes of the timed steps 1, 2 and 6: what the kernel reached, against
/// the roofs, the naive kernel (speedup) and cuBLAS SGEMM (GFLOP/s).
std::string step1_note(int width, double achieved);
std::string step2_note(int width, double speedup, double achieved, double cublas);
std::string step6_note(int width, const lab4::BlockTile& tile, double intensity, double achieved,
                       double reference_achieved, double cublas);

/// Step 5: one kernel of seed_bugs.cu, what steps 2's and 3's checks said of it
/// ("" when it passed), and the student's answer (@p right or not).
std::string seed_bug_row(const lab4::SeedBugInfo& info, const std::string& at_multiples,
                         const std::string& at_others, lab4::Detector answer, bool right);

}  // namespace lab4::checks
