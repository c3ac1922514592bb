// Every lab's choices for GPUs a student may have, run on the host
// (memlab/by_gpu.hpp): the published properties of each card (vendors'
// datasheets; the H100 and H200 rows as their drivers report them, from
// docs/measurements), the sizes the graders would choose there, whether they
// fit, what the lab's timed checks cost there, and which checks past 2^31
// elements run. `memlab_host_tests "[gpu_table]" -s` prints the table that
// docs/gpus.md shows.
#include "memlab/by_gpu.hpp"
#include "memlab/grading/catch2.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Gpu {
  const char* name;
  int major, minor;
  int sms;
  double l2_mb;          // L2, MB (10^6 bytes)
  double memory_gb;      // device memory, GB (10^9 bytes)
  double bandwidth_gbps; // DRAM, GB/s
  double fp32_tflops;
  int fp32_per_fp64;     // FP32 operations per FP64 one
  int shared_per_sm_kb;  // shared memory per SM, KiB
};

const std::vector<Gpu> kGpus = {
    {"GeForce GTX 1650 (4 GB)", 7, 5, 14, 1.0, 4.0, 128, 3.0, 32, 64},
    {"Tesla T4", 7, 5, 40, 4.0, 16.0, 320, 8.1, 32, 64},
    {"GeForce RTX 3050 Laptop (4 GB)", 8, 6, 16, 2.0, 4.0, 192, 5.5, 64, 100},
    {"GeForce RTX 3060 (12 GB)", 8, 6, 28, 3.0, 12.0, 360, 12.7, 64, 100},
    {"GeForce RTX 3090", 8, 6, 82, 6.0, 24.0, 936, 35.6, 64, 100},
    {"A10", 8, 6, 72, 6.0, 24.0, 600, 31.2, 64, 100},
    {"A100 40GB PCIe", 8, 0, 108, 40.0, 40.0, 1555, 19.5, 2, 164},
    {"A100 80GB SXM", 8, 0, 108, 40.0, 80.0, 2039, 19.5, 2, 164},
    {"GeForce RTX 4090", 8, 9, 128, 72.0, 24.0, 1008, 82.6, 64, 100},
    {"L4", 8, 9, 58, 48.0, 24.0, 300, 30.3, 64, 100},
    {"L40S", 8, 9, 142, 96.0, 48.0, 864, 91.6, 64, 100},
    {"H100 80GB HBM3 (measured)", 9, 0, 132, 52.4, 85.0, 3352, 66.9, 2, 228},
    {"H200 (measured)", 9, 0, 132, 60.0, 139.8, 4800, 66.9, 2, 228},
};

constexpr double kMB = 1e6;
constexpr double kGB = 1e9;

// Seconds of timed GPU work in one speed comparison (speed.cpp: 2 warm-up
// pairs, 5 runs of the reference alone, 21 pairs, measured twice at worst),
// for work that moves @p bytes at a @p share of the DRAM bandwidth.
double comparison_seconds(double bytes, double bandwidth_gbps, double share) {
  constexpr int kRuns = 2 * 2 + 5 + 2 * 21 * 2;
  return kRuns * bytes / (share * bandwidth_gbps * kGB);
}

}  // namespace

TEST_CASE("every lab's sizes fit, and its timed checks stay short, on every GPU of the table", "[gpu_table]") {
  std::printf("| GPU | CC | L2 | memory | lab 1 timing | lab 2/3 matrix, waves | lab 5 N | FP64 rate | "
              "longest timed check | past 2^31 checked in labs |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Gpu& gpu : kGpus) {
    INFO(gpu.name);
    const auto l2 = static_cast<std::size_t>(gpu.l2_mb * kMB);
    const auto memory = static_cast<std::size_t>(gpu.memory_gb * kGB);

    // Lab 1: the speed check streams from DRAM (4x L2 at least) and fits.
    const std::size_t vector_bytes = memlab::by_gpu::vector_add_timing_bytes(l2, memory);
    CHECK(vector_bytes >= 4 * l2);
    CHECK(vector_bytes <= memory / 8);
    // Step 3's footprints: above 2x L2 and below a quarter of memory must both be possible.
    CHECK(2 * l2 <= memory / 4);

    // Labs 2 and 3: the timing matrix, in float and in double, fits beside everything else.
    // Warp-per-row blocks of 8 warps, 8 blocks an SM: at least 1.5 waves (the H200 at 1.33
    // waves lost 10% of its float row sums' speed to the partial last wave, lab2-3.md).
    const std::size_t side = memlab::by_gpu::sums_timing_side(l2, memory);
    CHECK(side >= 4096);
    CHECK(3.0 * side * side * sizeof(double) <= 0.5 * memory);
    const double waves = static_cast<double>(side) / 8 / (8.0 * gpu.sms);
    CHECK(waves >= 1.5);

    // Lab 5: both layouts of A fit in a quarter of memory.
    const std::size_t n = memlab::by_gpu::gemv_timing_side(memory);
    CHECK(n >= 4096);
    CHECK(2.0 * n * n * sizeof(double) <= 0.25 * memory);

    // The FP64 rate lab 3 expects, from the compute capability, is the card's.
    const auto rate = memlab::by_gpu::fp32_per_fp64(gpu.major, gpu.minor);
    REQUIRE(rate.has_value());
    CHECK(*rate == gpu.fp32_per_fp64);

    // The longest timed comparison: lab 5's thread-per-row GEMVs run at about a
    // quarter of the bandwidth (docs/measurements/lab4-5.md), lab 1's at about
    // 0.9, labs 2 and 3's double sums at about 0.9 of twice the float bytes.
    const double lab1 = comparison_seconds(vector_bytes, gpu.bandwidth_gbps, 0.9);
    const double lab3 = comparison_seconds(2.0 * side * side * sizeof(float), gpu.bandwidth_gbps, 0.9);
    const double lab5 = comparison_seconds(8.0 * n * n, gpu.bandwidth_gbps, 0.25);
    const double longest = std::max({lab1, lab3, lab5});
    CHECK(longest < 10.0);

    // The grader's own buffers and the runners' contexts take some of it: a tenth, here.
    const auto fits = [memory](std::size_t bytes) { return static_cast<double>(bytes) <= 0.9 * memory; };
    std::string big;
    const auto add = [&big](const char* labs) { big += (big.empty() ? "" : ", ") + std::string(labs); };
    if (fits(memlab::by_gpu::beyond_31_bits_vector_add_bytes())) add("1");
    if (fits(memlab::by_gpu::beyond_32_bits_bytes(sizeof(float)))) add("2, 3 (float)");
    if (fits(memlab::by_gpu::beyond_32_bits_bytes(sizeof(double)))) add("3 (double), 5");
    std::printf("| %s | %d.%d | %.0f MB | %.0f GB | %.2f GB | %zu, %.1f | %zu | 1/%d | %.1f s | %s |\n", gpu.name,
                gpu.major, gpu.minor, gpu.l2_mb, gpu.memory_gb, static_cast<double>(vector_bytes) / kGB, side, waves, n,
                *rate, longest, big.empty() ? "none (too little memory)" : big.c_str());
  }
}
