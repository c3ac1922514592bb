// What lab 4's checks explain beside their verdicts (notes.hpp).
#include "notes.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/grading/grader.hpp>
#include <memlab/report.hpp>

#include <algorithm>
#include <fstream>
#include <vector>

namespace lab4::checks {

namespace grading = memlab::grading;
using memlab::format_text;

// Rewrites roofline.csv with @p point added (replacing an earlier point of the
// same kernel), so the plot shows every kernel timed so far.
void add_to_roofline(const RooflinePoint& point) {
  static std::vector<RooflinePoint> points;
  auto same = std::find_if(points.begin(), points.end(), [&](const RooflinePoint& p) { return p.kernel == point.kernel; });
  if (same != points.end()) {
    *same = point;
  } else {
    points.push_back(point);
  }
  std::ofstream csv(grading::output_path("roofline.csv"));
  csv << "# gpu: " << grading::device().name << "\n"
      << "# peak_gbps: " << format_text("%.0f", grading::ceilings().peak_gbps()) << "\n"
      << "# fp32_gflops: " << format_text("%.0f", grading::ceilings().fp32_gflops) << "\n"
      << "kernel,intensity_flop_per_byte,gflops,width\n";
  for (const RooflinePoint& p : points) {
    csv << p.kernel << "," << p.intensity << "," << format_text("%.0f", p.gflops) << "," << p.width << "\n";
  }
}

// Where @p intensity (FLOP per byte) meets the roofs: the GFLOP/s the measured
// peak bandwidth could feed, if every byte came from DRAM, and the compute ceiling.
std::string roofline_text(const std::string& kernel, double intensity, double achieved) {
  const double fed = intensity * grading::ceilings().peak_gbps();
  const double peak = grading::ceilings().fp32_gflops;
  return format_text(
      "  %s asks global memory for %.3g FLOP per byte.\n"
      "  If every byte came from DRAM at %.0f GB/s, that would allow %.0f GFLOP/s (the compute\n"
      "  ceiling is %.0f). It reached %.0f GFLOP/s.",
      kernel.c_str(), intensity, grading::ceilings().peak_gbps(), std::min(fed, peak), peak, achieved);
}

const cudaDeviceProp& device_properties() {
  static const cudaDeviceProp properties = [] {
    cudaDeviceProp p{};
    MEMLAB_CHECK(cudaGetDeviceProperties(&p, grading::device().device));
    return p;
  }();
  return properties;
}

namespace {

// How many tile x tile blocks of the dynamic kernel one SM can hold, and which
// limit decides it (registers aside: the kernel needs few).
std::string occupancy_row(int tile, double achieved_gflops) {
  const cudaDeviceProp& p = device_properties();
  const int threads = tile * tile;
  const std::size_t shared = 2 * std::size_t(tile) * tile * sizeof(float);
  const int by_threads = p.maxThreadsPerMultiProcessor / threads;
  // Each resident block also takes the shared memory the system reserves for it.
  const auto by_shared = static_cast<int>(p.sharedMemPerMultiprocessor / (shared + p.reservedSharedMemPerBlock));
  const int by_blocks = p.maxBlocksPerMultiProcessor;
  const int blocks = std::min({by_threads, by_shared, by_blocks});
  const char* limit = blocks == by_blocks ? "blocks per SM" : blocks == by_threads ? "threads per SM" : "shared memory";
  return format_text("  %2d x %-2d  %5d  %6zu B  %6d  %6d  %6d  %5d (%3.0f%%, %s)  %6.0f\n", tile, tile, threads,
                     shared, by_threads, by_shared, by_blocks, blocks * threads,
                     100.0 * blocks * threads / p.maxThreadsPerMultiProcessor, limit, achieved_gflops);
}

}  // namespace


std::string occupancy_report(int width, const std::function<double(int tile)>& dynamic_gflops,
                             const std::function<double()>& compiled_in_gflops) {
  const cudaDeviceProp& p = device_properties();
  std::string table = format_text(
      "Step 4: occupancy of your dynamic-tile kernel on this GPU: %d threads and %zu KB of shared memory\n"
      "  per SM, at most %d blocks per SM; %zu B of shared memory reserved per block. Width %d.\n"
      "  tile    threads  shared  blocks/SM limited by:     resident threads  GFLOP/s\n"
      "          /block   /block  threads  shared  blocks\n",
      p.maxThreadsPerMultiProcessor, p.sharedMemPerMultiprocessor / 1024, p.maxBlocksPerMultiProcessor,
      p.reservedSharedMemPerBlock, width);
  int fastest = 0;
  double fastest_gflops = 0.0;
  for (int t : {8, 16, 32}) {
    if (t * t > p.maxThreadsPerBlock) continue;
    const double achieved = dynamic_gflops(t);
    table += occupancy_row(t, achieved);
    if (achieved > fastest_gflops) {
      fastest = t;
      fastest_gflops = achieved;
    }
  }
  table += format_text(
      "  Fastest here: tile %d. Your step 2 kernel, with its tile of %d compiled in, reached %.0f GFLOP/s:\n"
      "  with the tile known when the kernel is compiled, the k loop is unrolled and the tile offsets are\n"
      "  constants; with a tile known only at run time, each step of k costs a few more instructions.",
      fastest, lab4::kTileWidth, compiled_in_gflops());
  return table;
}

std::string step1_note(int width, double achieved) {
  return format_text("Step 1 at width %d:\n", width) +
         roofline_text("Your naive kernel, 2 FLOPs per two 4-byte loads,", 0.25, achieved) +
         "\n  Above that line means the caches (L1, L2) served most of its loads.";
}

std::string step2_note(int width, double speedup, double achieved, double cublas) {
  return format_text(
             "Step 2 at width %d: your tiled kernel ran %.2fx as fast as the naive one, and reached %.0f%% of\n"
             "  cuBLAS SGEMM in full FP32 (%.0f GFLOP/s). Tiles of %d cut the loads per FLOP %dx; the speed\n"
             "  gained is far less, because L1 and L2 already served most of the naive kernel's repeated loads.\n",
             width, speedup, 100 * achieved / cublas, cublas, lab4::kTileWidth, lab4::kTileWidth) +
         roofline_text("The tiled kernel, 2 x 16 FLOPs per two loads,", lab4::kTileWidth / 4.0, achieved);
}

std::string step6_note(int width, const lab4::BlockTile& tile, double intensity, double achieved,
                       double reference_achieved, double cublas) {
  return format_text(
             "Step 6 at width %d: your fast kernel reached %.0f GFLOP/s, %.0f%% of cuBLAS SGEMM in full FP32\n"
             "  (%.0f GFLOP/s; the reference: %.0f%%) and %.0f%% of this GPU's measured FP32 ceiling (%.0f).\n",
             width, achieved, 100 * achieved / cublas, cublas, 100 * reference_achieved / cublas,
             100 * achieved / grading::ceilings().fp32_gflops, grading::ceilings().fp32_gflops) +
         roofline_text(format_text("Your %d x %d block tile", tile.rows, tile.cols), intensity, achieved);
}

namespace {

const char* detector_name(lab4::Detector detector) {
  switch (detector) {
    case lab4::Detector::step2_check: return "step 2's check";
    case lab4::Detector::step3_check: return "step 3's check";
    case lab4::Detector::racecheck: return "racecheck";
  }
  return "?";
}

// "width 16: c: 256 of 256 elements wrong", without the mismatches that follow.
std::string summary_of(const std::string& problem) {
  if (problem.empty()) return "passed";
  return problem.substr(0, problem.find("; first:"));
}

}  // namespace

std::string seed_bug_row(const lab4::SeedBugInfo& info, const std::string& at_multiples,
                         const std::string& at_others, lab4::Detector answer, bool right) {
  return format_text("  %-27s (%s)\n    step 2's check: %s\n    step 3's check: %s\n    your answer: %s%s\n",
                     info.name, info.mistake, summary_of(at_multiples).c_str(), summary_of(at_others).c_str(),
                     detector_name(answer), right ? "" : "  (not right)");
}

}  // namespace lab4::checks
