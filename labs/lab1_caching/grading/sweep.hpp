/// @file sweep.hpp
/// @brief Lab 1's grader: the footprint sweep of step 3, which step 4 judges the prediction against.
///
/// The sweep times the reference's vector_add, in the reference's runner: the
/// cache behaves the same for any correct kernel, and that runner holds no code
/// of the student's, so the measurement is one the student cannot touch.
#pragma once

#include "arrays.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace lab1::checks {

// One footprint of the step 3 sweep: event times of kLaunches launches after an L2 flush.
struct SweepPoint {
  std::size_t chosen = 0;     // the footprint choose_footprints() returned: steps 3 and 4 judge this one
  std::size_t footprint = 0;  // the bytes measured: whole elements of it
  std::vector<double> launch_ms;  // median over rounds, per launch
  double cold_ms = 0.0;           // launch 1
  double warm_ms = 0.0;           // median of launches 2..kLaunches
  double speedup() const { return cold_ms / warm_ms; }
  double gbps(double ms) const { return memlab::gigabytes_per_second(static_cast<double>(footprint), ms); }
};

/// Step 3 measures, step 4 judges the prediction against the same measurement.
std::vector<SweepPoint>& sweep();
/// Event times of kLaunches launches of the reference's vector_add, taken in its runner after an L2 flush there.
std::vector<double> reference_launch_times(Arrays& arr, std::size_t n);
/// The sweep's measurement at @p footprint bytes (15 rounds).
SweepPoint measure_footprint(std::size_t footprint);
/// The sweep as CSV, for the lab's plot.
void write_sweep_csv(const std::vector<SweepPoint>& points, const std::string& path);

enum class Region { below, between, above };
/// Where a footprint lies relative to L2, in the terms choose_footprints() is asked for.
Region region_of(std::size_t footprint, std::size_t l2);
/// "10.5 MB (0.2 x L2)".
std::string describe_footprint(std::size_t footprint, std::size_t l2);
/// A line of step 3's note: the footprint, its cold and warm bandwidth, the warm speedup.
std::string sweep_row(const SweepPoint& point, std::size_t l2);

}  // namespace lab1::checks
