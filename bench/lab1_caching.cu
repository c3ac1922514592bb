// Measurements behind lab 1's grader: how vector_add's launch configuration
// compares with the copy ceiling, what the L2 flush does to the first launch,
// how big the cache effect is at each footprint, and how noisy each comparison
// the grader makes is when nothing differs. Prints Markdown tables.
//
//   build/bench/bench_lab1_caching [rounds]     (rounds of each noise test; default 20)

#include <memlab/device_facts.cuh>
#include <memlab/device_random.cuh>
#include <memlab/report.hpp>
#include <memlab/stats.hpp>
#include <memlab/timing.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

using memlab::format_text;

namespace {

constexpr int kThreads = 256;
constexpr double kBytesPerElement = 3 * sizeof(float);

// 1. One element per thread: as many blocks as n needs.
__global__ void add_one_per_thread(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// 2. Grid-stride loop over scalars: any grid size.
__global__ void add_grid_stride(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    c[i] = a[i] + b[i];
  }
}

// 3. Grid-stride over float4: 16-byte loads and stores (n must be a multiple of 4).
__global__ void add_float4(const float4* a, const float4* b, float4* c, std::size_t n4) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

struct Arrays {
  explicit Arrays(std::size_t n) : n(n), a(n), b(n), c(n) {}
  std::size_t n;
  memlab::DeviceBuffer<float> a, b, c;
};

memlab::Work grid_stride(Arrays& x, std::size_t n, unsigned blocks) {
  return [&x, n, blocks](cudaStream_t s) {
    add_grid_stride<<<blocks, kThreads, 0, s>>>(x.a.data(), x.b.data(), x.c.data(), n);
  };
}

double median_gbps(memlab::KernelTimer& timer, const memlab::Work& work, double bytes) {
  return memlab::gigabytes_per_second(bytes, memlab::median(timer.samples_ms(work, {2, 21, memlab::Cache::cold})));
}

std::string spread(const std::vector<double>& v) {
  const memlab::Summary s = memlab::summarize(v);
  return format_text("%.3f | %.3f | %.3f | %.3f", s.min, s.median, s.p90, s.max);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  if (const auto why = memlab::why_no_gpu()) {
    std::printf("no GPU: %s\n", why->c_str());
    return 77;
  }
  const memlab::DeviceFacts gpu = memlab::query_device();
  memlab::Stream stream;
  memlab::KernelTimer timer(stream, gpu.l2_bytes);
  const memlab::MeasuredCeilings ceilings = memlab::measure_ceilings(gpu, stream);
  const unsigned sms = static_cast<unsigned>(gpu.sm_count);

  std::printf("# Lab 1 measurements: %s\n\n", gpu.summary().c_str());
  std::printf("driver %d, runtime %d; copy kernel %.0f GB/s (bytes read + written, %s per buffer); "
              "theoretical %.0f GB/s; empty kernel %.2f us between events\n\n",
              gpu.driver_version, gpu.runtime_version, ceilings.copy_gbps,
              memlab::format_bytes(static_cast<double>(ceilings.copy_bytes)).c_str(),
              gpu.theoretical_gbps, ceilings.launch_overhead_us);

  const std::size_t big_n = std::min<std::size_t>(8 * gpu.l2_bytes, gpu.global_memory_bytes / 8) /
                            static_cast<std::size_t>(kBytesPerElement) / 4 * 4;
  Arrays x(big_n);
  memlab::fill_random(x.a.data(), big_n, 1, -1, 1, stream);
  memlab::fill_random(x.b.data(), big_n, 2, -1, 1, stream);
  const double bytes = kBytesPerElement * static_cast<double>(big_n);

  // --- Launch configurations against the copy ceiling ---------------------
  std::printf("## vector_add at %s (8x L2), median of 21 cold launches\n\n",
              memlab::format_bytes(bytes).c_str());
  std::printf("| kernel | GB/s | %% of copy |\n|---|---|---|\n");
  const auto row = [&](const std::string& name, const memlab::Work& work) {
    const double gbps = median_gbps(timer, work, bytes);
    std::printf("| %s | %.0f | %.1f |\n", name.c_str(), gbps, 100 * gbps / ceilings.copy_gbps);
  };
  row("one element per thread", [&](cudaStream_t s) {
    add_one_per_thread<<<static_cast<unsigned>((big_n + kThreads - 1) / kThreads), kThreads, 0, s>>>(
        x.a.data(), x.b.data(), x.c.data(), big_n);
  });
  for (unsigned per_sm : {1u, 2u, 4u, 8u, 16u, 32u}) {
    row(format_text("grid-stride, %u blocks per SM", per_sm), grid_stride(x, big_n, per_sm * sms));
  }
  row("float4 grid-stride, 8 blocks per SM", [&](cudaStream_t s) {
    add_float4<<<8 * sms, kThreads, 0, s>>>(reinterpret_cast<const float4*>(x.a.data()),
                                             reinterpret_cast<const float4*>(x.b.data()),
                                             reinterpret_cast<float4*>(x.c.data()), big_n / 4);
  });
  row("grid-stride, one block", grid_stride(x, big_n, 1));

  // --- The cache effect, and what the flush leaves behind -----------------
  memlab::DeviceBuffer<unsigned char> dirty(2 * gpu.l2_bytes);
  std::printf("\n## Five launches after a flush, median of 15 rounds (grid-stride, 8 blocks per SM)\n\n");
  std::printf("Read flush: L2Flusher (reads 2x L2). Write flush: cudaMemset of 2x L2, which leaves\n"
              "dirty lines in L2 for the first timed launch to write back.\n\n");
  std::printf("| footprint | x L2 | flush | launch 1 GB/s | launches 2-5 GB/s | speedup | speedup p10-p90 over rounds |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (double multiple : {0.125, 0.25, 0.375, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0, 8.0}) {
    const std::size_t n = static_cast<std::size_t>(multiple * gpu.l2_bytes / kBytesPerElement);
    for (const bool write_flush : {false, true}) {
      std::vector<std::vector<double>> ms(5);
      std::vector<double> speedups;
      for (int round = 0; round < 15; ++round) {
        if (write_flush) {
          dirty.fill_bytes(static_cast<unsigned char>(round), stream);
        } else {
          timer.flush_l2();
        }
        const auto t = memlab::time_sequence(grid_stride(x, n, 8 * sms), 5, stream);
        for (int i = 0; i < 5; ++i) ms[i].push_back(t[i]);
        speedups.push_back(t[0] / memlab::median({t[1], t[2], t[3], t[4]}));
      }
      std::vector<double> warm;
      for (int i = 1; i < 5; ++i) warm.insert(warm.end(), ms[i].begin(), ms[i].end());
      const double fp = kBytesPerElement * static_cast<double>(n);
      const double cold_ms = memlab::median(ms[0]);
      const double warm_ms = memlab::median(warm);
      std::printf("| %s | %.3g | %s | %.0f | %.0f | %.2f | %.2f-%.2f |\n",
                  memlab::format_bytes(fp).c_str(), multiple, write_flush ? "write" : "read",
                  memlab::gigabytes_per_second(fp, cold_ms), memlab::gigabytes_per_second(fp, warm_ms),
                  cold_ms / warm_ms, memlab::percentile(speedups, 10), memlab::percentile(speedups, 90));
    }
  }

  // --- Noise of the grader's comparisons when nothing differs -------------
  std::printf("\n## Noise: %d repetitions of each comparison the grader makes\n\n", rounds);
  std::printf("| comparison | min | median | p90 | max |\n|---|---|---|---|---|\n");
  const auto repeat = [&](const std::function<double()>& measure) {
    std::vector<double> values;
    for (int i = 0; i < rounds; ++i) values.push_back(measure());
    return values;
  };
  const memlab::TimingOptions grader_speed{2, 21, memlab::Cache::cold};
  std::printf("| step 1 speed: same kernel vs itself, median per-pair time ratio | %s |\n",
              spread(repeat([&] {
                return timer.compare(grid_stride(x, big_n, 8 * sms), grid_stride(x, big_n, 8 * sms),
                                     grader_speed).median_ratio;
              })).c_str());
  std::printf("| step 1 speed: one element per thread vs grid-stride | %s |\n",
              spread(repeat([&] {
                return timer.compare(
                    [&](cudaStream_t s) {
                      add_one_per_thread<<<static_cast<unsigned>((big_n + kThreads - 1) / kThreads),
                                           kThreads, 0, s>>>(x.a.data(), x.b.data(), x.c.data(), big_n);
                    },
                    grid_stride(x, big_n, 8 * sms), grader_speed).median_ratio;
              })).c_str());
  std::printf("| step 1 speed: one block vs grid-stride (3 repetitions) | %s |\n",
              spread({timer.compare(grid_stride(x, big_n, 1), grid_stride(x, big_n, 8 * sms), {1, 5, memlab::Cache::cold}).median_ratio,
                      timer.compare(grid_stride(x, big_n, 1), grid_stride(x, big_n, 8 * sms), {1, 5, memlab::Cache::cold}).median_ratio,
                      timer.compare(grid_stride(x, big_n, 1), grid_stride(x, big_n, 8 * sms), {1, 5, memlab::Cache::cold}).median_ratio})
                  .c_str());
  // Step 2 compares per-launch medians of two timers over 15 rounds at L2/2,
  // each after an L2 flush and a 1 ms hold of the stream.
  const std::size_t half_l2_n = gpu.l2_bytes / 2 / static_cast<std::size_t>(kBytesPerElement);
  using Timer = std::function<std::vector<double>()>;
  const memlab::Work half = grid_stride(x, half_l2_n, 8 * sms);
  const Timer back_to_back = [&] { return memlab::time_sequence(half, 5, stream); };
  const Timer together = [&] {  // one pair of events around all five, averaged
    const double total = memlab::time_sequence([&](cudaStream_t s) { for (int i = 0; i < 5; ++i) half(s); }, 1, stream)[0];
    return std::vector<double>(5, total / 5);
  };
  const Timer waiting = [&] {  // waits for each launch before the next
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) ms.push_back(memlab::time_sequence(half, 1, stream)[0]);
    return ms;
  };
  const auto worst_ratio = [&](const Timer& first_timer, const Timer& second_timer) {
    std::vector<std::vector<double>> first(5), second(5);
    for (int r = 0; r < 15; ++r) {
      timer.flush_l2();
      memlab::hold_stream(stream, 1000);  // as the grader does
      const auto t1 = first_timer();
      timer.flush_l2();
      memlab::hold_stream(stream, 1000);
      const auto t2 = second_timer();
      for (int i = 0; i < 5; ++i) {
        first[i].push_back(t1[i]);
        second[i].push_back(t2[i]);
      }
    }
    return memlab::worst_median_ratio(first, second);
  };
  std::printf("| step 2 timer at L2/2: worst per-launch ratio, back to back vs back to back | %s |\n",
              spread(repeat([&] { return worst_ratio(back_to_back, back_to_back); })).c_str());
  std::printf("| step 2 timer at L2/2: all five timed together and averaged vs back to back | %s |\n",
              spread(repeat([&] { return worst_ratio(together, back_to_back); })).c_str());
  std::printf("| step 2 timer at L2/2: waiting after each launch vs back to back | %s |\n",
              spread(repeat([&] { return worst_ratio(waiting, back_to_back); })).c_str());
  return 0;
}
