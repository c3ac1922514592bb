// What `make lab2-profile` runs under Nsight Compute: your four kernels once
// each on an 8192 x 8192 matrix, with the OLCF coalescing exercise's load-efficiency counters,
// then your two step 1 kernels again from the build of your file with non-caching
// loads (-Xptxas -dlcm=cg: labs/lab2_coalescing/CMakeLists.txt), with L1's hit rate
// and the sectors L2 served. scripts/ncu_table.py prints the tables once ncu has finished.

#include "lab2_api.hpp"

#include <memlab/device_facts.cuh>
#include <memlab/device_random.cuh>
#include <memlab/profiling.cuh>
#include <memlab/report.hpp>
#include <memlab/timing.cuh>

int main(int argc, char** argv) {
  const std::vector<memlab::ProfileColumn> columns = {
      {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "bytes used"},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors/request",
       "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
      {"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "L1 hit"},
      {"lts__t_sectors_srcunit_tex_op_read.sum", "L2 sectors"},
      {"dram__bytes_read.sum", "DRAM read"},
      {"gpu__time_duration.sum", "time"}};
  const memlab::ProfileVariant uncached{MEMLAB_PROFILE_VARIANT, MEMLAB_PROFILE_VARIANT_FLAGS};
  return memlab::run_profile_program(argc, argv, "memlab_lab2_api", columns, uncached,
                                     [&](const void* table, const void* uncached_table, std::ostream& plan) {
    const auto& api = *static_cast<const lab2::Api*>(table);
    const auto& uncached_api = *static_cast<const lab2::Api*>(uncached_table);
    const memlab::DeviceFacts gpu = memlab::query_device();
    constexpr std::size_t kSide = 8192;
    memlab::Stream stream;
    memlab::L2Flusher flusher(gpu.l2_bytes);
    memlab::DeviceBuffer<float> matrix(kSide * kSide), sums(kSide);
    memlab::fill_random(matrix.data(), matrix.size(), 1, -1.0, 1.0, stream);

    plan << "title: Global loads of your lab 2 kernels on a " << kSide << " x " << kSide << " float matrix ("
         << memlab::format_bytes(static_cast<double>(matrix.bytes())) << "), on " << gpu.name << "\n";
    // The step 1 kernels come twice: from the usual build of your file, and from
    // the build whose global loads are not cached in L1 (-dlcm=cg).
    const std::string uncached_label = ", built with " + uncached.flags;
    const std::pair<std::string, decltype(api.row_sums)> groups[] = {
        {"row_sums_thread_per_row (step 1)", api.row_sums_thread_per_row},
        {"column_sums_thread_per_column (step 1)", api.column_sums_thread_per_column},
        {"row_sums (step 3)", api.row_sums},
        {"column_sums (step 3)", api.column_sums},
        {"row_sums_thread_per_row (step 1)" + uncached_label, uncached_api.row_sums_thread_per_row},
        {"column_sums_thread_per_column (step 1)" + uncached_label, uncached_api.column_sums_thread_per_column}};
    for (const auto& [label, function] : groups) {
      plan << "group: " << label << "\n";
      flusher.flush(stream);
      memlab::mark_profile_group(stream);
      function(matrix.data(), sums.data(), kSide, kSide, stream);
      stream.synchronize();
    }
    plan << memlab::format_text(
        "note: Your step 2 answers: row_per_thread %d, column_per_thread %d sectors per request.\n",
        api.sectors_per_request(lab2::Access::row_per_thread),
        api.sectors_per_request(lab2::Access::column_per_thread));
    plan << "note: A request is one warp-wide load instruction; a sector is 32 bytes. 32 floats in a row\n"
            "note: need 4 sectors; 32 floats from 32 different rows need 32, and use 4 of each sector's 32\n"
            "note: bytes (12.5 %). 'bytes used' is that share, averaged over all the kernel's loads.\n"
            "note: DRAM read can stay near the matrix size even at 32 sectors per request: the other 28\n"
            "note: bytes of each sector are read by the same thread's next 7 loads, often from L1 or L2.\n"
            "note: What the uncoalesced kernel loses is the time spent asking: 8x the requests to the cache.\n"
            "note: L1 hit: the share of the loads' sectors that L1 already held; L2 sectors: those L1 asked L2 for.\n";
    plan << "note: The last two groups are your step 1 kernels again, built with " << uncached.flags
         << " (non-caching loads):\n"
            "note: compare them with the first two, then read 'Non-caching loads' in lab 2's guide.\n";
  });
}
