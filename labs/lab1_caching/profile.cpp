// What `make lab1-profile` runs under Nsight Compute: your vector_add, five
// launches in a row after an L2 flush, at a footprint well below L2 and one
// well above it. It writes a plan (what ran, and how to read the counters) for
// scripts/ncu_table.py, which prints the table after ncu has finished.

#include "lab1.cuh"

#include <memlab/device_facts.cuh>
#include <memlab/device_random.cuh>
#include <memlab/grading/plugin.hpp>
#include <memlab/report.hpp>
#include <memlab/timing.cuh>

#include <cstring>
#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  std::string student_path, plan_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--student") == 0) student_path = argv[i + 1];
    if (std::strcmp(argv[i], "--plan") == 0) plan_path = argv[i + 1];
  }
  if (student_path.empty() || plan_path.empty()) {
    std::cerr << "usage: lab1_profile --student <lib.so> --plan <file>\n";
    return 2;
  }
  if (const auto why = memlab::why_no_gpu()) {
    std::cerr << "lab1-profile needs an NVIDIA GPU: " << *why << "\n";
    return 77;
  }
  try {
    const auto& api = *static_cast<const lab1::Api*>(
        memlab::grading::Plugin(student_path).symbol("memlab_lab1_api"));
    const memlab::DeviceFacts gpu = memlab::query_device();
    const std::size_t l2 = gpu.l2_bytes;
    const std::size_t footprints[] = {l2 / 4, 4 * l2};
    constexpr int kLaunches = 5;
    const std::size_t most = footprints[1] / (3 * sizeof(float));

    memlab::Stream stream;
    memlab::L2Flusher flusher(l2);
    memlab::DeviceBuffer<float> a(most), b(most), c(most);
    memlab::fill_random(a.data(), most, 1, -1.0, 1.0, stream);
    memlab::fill_random(b.data(), most, 2, -1.0, 1.0, stream);

    std::ofstream plan(plan_path);
    plan << "title: DRAM traffic of " << kLaunches << " launches of your vector_add after an L2 flush, on "
         << gpu.name << " (L2 " << memlab::format_bytes(static_cast<double>(l2)) << ")\n";
    for (std::size_t footprint : footprints) {
      const std::size_t n = footprint / (3 * sizeof(float));
      plan << "group: " << kLaunches << " | footprint "
           << memlab::format_bytes(static_cast<double>(footprint))
           << memlab::format_text(" (%.2g x L2): reading a and b from DRAM moves %s, writing c %s",
                                  static_cast<double>(footprint) / static_cast<double>(l2),
                                  memlab::format_bytes(2.0 * n * sizeof(float)).c_str(),
                                  memlab::format_bytes(1.0 * n * sizeof(float)).c_str())
           << "\n";
      flusher.flush(stream);
      for (int i = 0; i < kLaunches; ++i) api.vector_add(a.data(), b.data(), c.data(), n, stream);
      stream.synchronize();
    }
    plan << "note: Launch 1 follows the flush, so it reads a and b from DRAM. Below L2, the later launches\n"
            "note: read (almost) nothing from DRAM: a and b are still in L2. c is not written to DRAM either:\n"
            "note: L2 is write-back, and a dirty line goes out only when something evicts it.\n"
            "note: Above L2, every launch evicts what the next one reads first, so each reads all of a and b.\n"
            "note: There launch 1 writes less than the rest: the flush left L2 clean, while every later launch\n"
            "note: also writes back the dirty lines of c that the launch before it left in L2.\n"
            "note: sm__cycles_elapsed.sum adds up the cycles of all SMs: the warm launches below L2 need fewer.\n";
  } catch (const std::exception& error) {
    std::cerr << "lab1_profile: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
