// Lab 1's footprint sweep (sweep.hpp).
#include "sweep.hpp"

#include <memlab/grading/remote.hpp>
#include <memlab/report.hpp>
#include <memlab/stats.hpp>

#include <fstream>

namespace lab1::checks {

namespace remote = memlab::grading::remote;
using memlab::format_text;

std::vector<SweepPoint>& sweep() {
  static std::vector<SweepPoint> points;
  return points;
}

// Events around each of kLaunches launches of the reference's vector_add, taken
// in its runner after an L2 flush there (times taken in the student's runner
// would be the student's word). Below L2 a launch takes a few
// microseconds, no longer than the host needs to enqueue one; a host slowed
// down for a moment (another process, a page fault) then shows up as slow warm
// launches. Holding the stream until all five are queued keeps the host's pace
// out of the measurement.
std::vector<double> reference_launch_times(Arrays& arr, std::size_t n) {
  remote::before_next_call({true, kHoldMicroseconds});
  return remote::time_in_runner(remote::Side::reference, &lab1::Api::vector_add, kLaunches, arr.a(), arr.b(), arr.c(), n,
                                grading::stream())
      .ms;
}

// The sweep times the reference's vector_add: the cache behaves the same for any
// correct kernel, and the reference's runner holds no code of the student's, so
// step 4's prediction is judged against a measurement the student cannot touch.
SweepPoint measure_footprint(std::size_t footprint) {
  constexpr int kRounds = 15;
  const std::size_t n = elements_for(footprint);
  Arrays& arr = arrays(n);
  reference().vector_add(arr.a(), arr.b(), arr.c(), n, grading::stream());  // opens the arrays in its runner
  std::vector<std::vector<double>> samples(kLaunches);
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<double> ms = reference_launch_times(arr, n);
    for (int i = 0; i < kLaunches; ++i) samples[i].push_back(ms[i]);
  }
  SweepPoint point;
  point.chosen = footprint;
  point.footprint = n * kBytesPerElement;
  std::vector<double> warm;
  for (int i = 0; i < kLaunches; ++i) {
    point.launch_ms.push_back(memlab::median(samples[i]));
    if (i > 0) warm.insert(warm.end(), samples[i].begin(), samples[i].end());
  }
  point.cold_ms = point.launch_ms.front();
  point.warm_ms = memlab::median(warm);
  return point;
}

void write_sweep_csv(const std::vector<SweepPoint>& points, const std::string& path) {
  const memlab::DeviceFacts& gpu = grading::device();
  std::ofstream csv(path);
  csv << "# gpu: " << gpu.name << "\n# l2_bytes: " << gpu.l2_bytes
      << "\n# peak_gbps: " << format_text("%.0f", grading::ceilings().peak_gbps())
      << "\nfootprint_bytes,l2_multiple,cold_gbps,warm_gbps,warm_speedup";
  for (int i = 1; i <= kLaunches; ++i) csv << ",launch" << i << "_ms";
  csv << '\n';
  for (const SweepPoint& p : points) {
    csv << p.footprint << ',' << static_cast<double>(p.footprint) / static_cast<double>(gpu.l2_bytes)
        << ',' << p.gbps(p.cold_ms) << ',' << p.gbps(p.warm_ms) << ',' << p.speedup();
    for (double ms : p.launch_ms) csv << ',' << ms;
    csv << '\n';
  }
}

Region region_of(std::size_t footprint, std::size_t l2) {
  if (footprint >= l2 / 8 && footprint <= l2 / 2) return Region::below;
  if (footprint >= 2 * l2) return Region::above;
  return Region::between;
}

std::string describe_footprint(std::size_t footprint, std::size_t l2) {
  return format_text("%s (%.3g x L2)", memlab::format_bytes(static_cast<double>(footprint)).c_str(),
                     static_cast<double>(footprint) / static_cast<double>(l2));
}

std::string sweep_row(const SweepPoint& point, std::size_t l2) {
  return format_text("  %-22s %10.0f GB/s %15.0f GB/s %12.2fx\n", describe_footprint(point.footprint, l2).c_str(),
                     point.gbps(point.cold_ms), point.gbps(point.warm_ms), point.speedup());
}

}  // namespace lab1::checks
