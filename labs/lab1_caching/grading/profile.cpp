// What `make lab1-profile` runs under Nsight Compute: your vector_add, five
// launches in a row after an L2 flush, at a footprint well below L2 and one
// well above it. scripts/ncu_table.py prints the tables once ncu has finished.

#include "lab1_api.hpp"

#include <memlab/device_facts.cuh>
#include <memlab/device_random.cuh>
#include <memlab/profiling.cuh>
#include <memlab/report.hpp>
#include <memlab/timing.cuh>

int main(int argc, char** argv) {
  // DRAM traffic split by direction, the cycles the OLCF caching exercise looks at, and time.
  const std::vector<memlab::ProfileColumn> columns = {{"dram__bytes.sum", "DRAM total"},
                                                      {"dram__bytes_read.sum", "DRAM read"},
                                                      {"dram__bytes_write.sum", "DRAM write"},
                                                      {"sm__cycles_elapsed.sum", "SM cycles"},
                                                      {"gpu__time_duration.sum", "time"}};
  return memlab::run_profile_program(argc, argv, "memlab_lab1_api", columns, [](const void* table, std::ostream& plan) {
    const auto& api = *static_cast<const lab1::Api*>(table);
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

    plan << "title: DRAM traffic of " << kLaunches << " launches of your vector_add after an L2 flush, on "
         << gpu.name << " (L2 " << memlab::format_bytes(static_cast<double>(l2)) << ")\n";
    for (std::size_t footprint : footprints) {
      const std::size_t n = footprint / (3 * sizeof(float));
      plan << "group: footprint " << memlab::format_bytes(static_cast<double>(footprint))
           << memlab::format_text(" (%.2g x L2): reading a and b from DRAM moves %s, writing c %s",
                                  static_cast<double>(footprint) / static_cast<double>(l2),
                                  memlab::format_bytes(2.0 * n * sizeof(float)).c_str(),
                                  memlab::format_bytes(1.0 * n * sizeof(float)).c_str())
           << "\n";
      flusher.flush(stream);
      memlab::mark_profile_group(stream);
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
  });
}
