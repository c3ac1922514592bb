// Measurements behind lab 5's last questions, both from the GEMV notebook of a
// Numba CUDA course: the lab's GEMVs launched with other block sizes (the
// notebook asks what blocks of 32 threads do), and the GPU against the CPU as
// N grows, with and without the copies between host and device memory.
// Prints Markdown tables.
//
//   build/bench/bench_lab5_gemv [--blocks N] [--cpu N,N,...]
//
// --blocks: the side of the square matrix for the block sizes (default 20000,
// the notebook's); --cpu: the sides for the GPU against the CPU (default
// 2048,8192,20000,32768). A side is skipped where its matrices do not fit.

#include "gemv_on_cpu.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/device_facts.cuh>
#include <memlab/device_random.cuh>
#include <memlab/parallel.hpp>
#include <memlab/stats.hpp>
#include <memlab/text.hpp>
#include <memlab/timing.cuh>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using memlab::bench::gemv_on_cpu;
using memlab::bench::warps_per_sm;

namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullWarp = 0xffffffffu;
constexpr double kAlpha = 0.75, kBeta = -0.5;  // the lab's grader uses the same

// ---- The lab's four GEMVs, with the block size a parameter ------------------
// The reference's plugin fixes its block sizes, so the four are written again
// here with the block size free; performance.cu times the reference itself.

// Step 1: thread r walks row r; a warp's load touches 32 rows, 32 sectors.
__global__ void thread_per_row_row_major(std::size_t rows, std::size_t cols, const double* a, const double* x,
                                         double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  double sum = 0.0;
  for (std::size_t c = 0; c < cols; ++c) sum += a[row * cols + c] * x[c];
  y[row] = kAlpha * sum + kBeta * y[row];
}

// Step 2: A column-major; a warp's load is 32 consecutive doubles of one column.
__global__ void thread_per_row_column_major(std::size_t rows, std::size_t cols, const double* a, const double* x,
                                            double* y) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  double sum = 0.0;
  for (std::size_t c = 0; c < cols; ++c) sum += a[c * rows + row] * x[c];
  y[row] = kAlpha * sum + kBeta * y[row];
}

// Step 3: as step 2, x read through a window of kBlock elements in shared
// memory; the window is the block size, so smaller blocks mean more barriers.
template <int kBlock>
__global__ void thread_per_row_shared_x(std::size_t rows, std::size_t cols, const double* a, const double* x,
                                        double* y) {
  __shared__ double window[kBlock];
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kBlock) + threadIdx.x;
  const bool in_matrix = row < rows;
  double sum = 0.0;
  for (std::size_t start = 0; start < cols; start += kBlock) {
    window[threadIdx.x] = start + threadIdx.x < cols ? x[start + threadIdx.x] : 0.0;
    __syncthreads();
    const std::size_t width = cols - start < kBlock ? cols - start : kBlock;
    if (in_matrix) {
      for (std::size_t j = 0; j < width; ++j) sum += a[(start + j) * rows + row] * window[j];
    }
    __syncthreads();
  }
  if (in_matrix) y[row] = kAlpha * sum + kBeta * y[row];
}

// Step 4: a warp per row (row-major), lanes on neighbouring columns, shuffles at the end.
__global__ void warp_per_row(std::size_t rows, std::size_t cols, const double* a, const double* x, double* y) {
  const std::size_t row = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (row >= rows) return;  // whole warps leave together
  const double* line = a + row * cols;
  double sum = 0.0;
  for (std::size_t c = lane; c < cols; c += kWarp) sum += line[c] * x[c];
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
  if (lane == 0) y[row] = kAlpha * sum + kBeta * y[row];
}

__global__ void transpose(const double* in, double* out, std::size_t rows, std::size_t cols) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t r = blockIdx.y * static_cast<std::size_t>(blockDim.y) + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

using Kernel = void (*)(std::size_t, std::size_t, const double*, const double*, double*);

unsigned blocks_for(std::size_t threads, int per_block) {
  return static_cast<unsigned>((threads + per_block - 1) / per_block);
}

// ---- Host side -----------------------------------------------------------------

struct Setup {
  memlab::DeviceFacts gpu = memlab::query_device();
  memlab::Stream stream;
  memlab::KernelTimer timer{stream, gpu.l2_bytes};
  memlab::MeasuredCeilings ceilings = memlab::measure_ceilings(gpu, stream);
  double median_ms(const memlab::Work& work) { return memlab::median(timer.samples_ms(work, {2, 21, memlab::Cache::cold})); }
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Milliseconds of @p work on the host clock: the median of @p runs after one untimed run.
double wall_ms(const std::function<void()>& work, int runs) {
  work();
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    ms.push_back(1e3 * seconds_since(start));
  }
  return memlab::median(ms);
}

// Values in [-1, 1) that differ from element to element (a hash of the index),
// filled on every core: a 32768 x 32768 matrix is 8.6 GB.
void fill_host(std::vector<double>& values, std::uint64_t seed) {
  const std::size_t stripe = 1 << 20;
  memlab::parallel_for((values.size() + stripe - 1) / stripe, [&](std::size_t s) {
    const std::size_t end = std::min(values.size(), (s + 1) * stripe);
    for (std::size_t i = s * stripe; i < end; ++i) {
      std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
      h ^= h >> 31;
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 29;
      values[i] = static_cast<double>(h >> 11) * 0x1.0p-52 - 1.0;
    }
  });
}

std::size_t host_memory_bytes() {
  return static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

std::string cpu_name() {
  std::ifstream file("/proc/cpuinfo");
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

double max_relative_difference(const std::vector<double>& got, const std::vector<double>& expected) {
  double worst = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    worst = std::max(worst, std::abs(got[i] - expected[i]) / (1.0 + std::abs(expected[i])));
  }
  return worst;
}

double gemv_bytes(std::size_t n) { return sizeof(double) * (static_cast<double>(n) * n + 3.0 * n); }

// ---- Block sizes ------------------------------------------------------------------

void block_sizes(Setup& s, std::size_t n) {
  std::vector<double> a_host(n * n), x_host(n), y_host(n), expected(n);
  fill_host(a_host, 1);
  fill_host(x_host, 2);
  fill_host(y_host, 3);
  expected = y_host;
  gemv_on_cpu(n, n, kAlpha, a_host.data(), x_host.data(), kBeta, expected.data());

  memlab::DeviceBuffer<double> row_major(n * n), column_major(n * n), x(n), y(n);
  row_major.upload(a_host, s.stream);
  x.upload(x_host, s.stream);
  transpose<<<dim3(blocks_for(n, 32), blocks_for(n, 8)), dim3(32, 8), 0, s.stream>>>(row_major.data(),
                                                                                  column_major.data(), n, n);
  MEMLAB_CHECK_LAUNCH();
  const double bytes = gemv_bytes(n);
  const int max_warps = s.gpu.max_threads_per_sm / kWarp;

  std::printf("\n## Block sizes, N = %zu (%s moved per GEMV)\n\n", n, memlab::format_bytes(bytes).c_str());
  std::printf("Warps per SM: what the grid gives each SM on average, at most what fits (of %d). "
              "\"agrees\": the largest difference from the CPU's y, relative to 1 + |y|.\n\n",
              max_warps);
  std::printf("| GEMV | threads per block | blocks | blocks per SM that fit | warps per SM | ms | GB/s | %% of peak | agrees |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  struct Row {
    const char* name;
    Kernel kernel;
    int block;
    bool warp_per_row;
    const double* a;
  };
  const std::vector<Row> rows = {
      {"thread per row, row-major (step 1)", thread_per_row_row_major, 32, false, row_major.data()},
      {"thread per row, row-major (step 1)", thread_per_row_row_major, 64, false, row_major.data()},
      {"thread per row, row-major (step 1)", thread_per_row_row_major, 128, false, row_major.data()},
      {"thread per row, row-major (step 1)", thread_per_row_row_major, 256, false, row_major.data()},
      {"thread per row, column-major (step 2)", thread_per_row_column_major, 32, false, column_major.data()},
      {"thread per row, column-major (step 2)", thread_per_row_column_major, 64, false, column_major.data()},
      {"thread per row, column-major (step 2)", thread_per_row_column_major, 128, false, column_major.data()},
      {"thread per row, column-major (step 2)", thread_per_row_column_major, 256, false, column_major.data()},
      {"x in shared memory, column-major (step 3)", thread_per_row_shared_x<32>, 32, false, column_major.data()},
      {"x in shared memory, column-major (step 3)", thread_per_row_shared_x<64>, 64, false, column_major.data()},
      {"x in shared memory, column-major (step 3)", thread_per_row_shared_x<128>, 128, false, column_major.data()},
      {"x in shared memory, column-major (step 3)", thread_per_row_shared_x<256>, 256, false, column_major.data()},
      {"warp per row, row-major (step 4)", warp_per_row, 32, true, row_major.data()},
      {"warp per row, row-major (step 4)", warp_per_row, 64, true, row_major.data()},
      {"warp per row, row-major (step 4)", warp_per_row, 128, true, row_major.data()},
      {"warp per row, row-major (step 4)", warp_per_row, 256, true, row_major.data()},
      {"warp per row, row-major (step 4)", warp_per_row, 512, true, row_major.data()}};
  for (const Row& row : rows) {
    const unsigned blocks = blocks_for(row.warp_per_row ? n * kWarp : n, row.block);
    int fit = 0;
    MEMLAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, row.kernel, row.block, 0));
    const auto run = [&](cudaStream_t stream) {
      row.kernel<<<blocks, row.block, 0, stream>>>(n, n, row.a, x.data(), y.data());
      MEMLAB_CHECK_LAUNCH();
    };
    y.upload(y_host, s.stream);  // one run from the CPU's starting y, to check the result
    run(s.stream);
    const double difference = max_relative_difference(y.to_host(n, s.stream), expected);
    const double ms = s.median_ms(run);
    const double gbps = memlab::gigabytes_per_second(bytes, ms);
    const double warps = warps_per_sm(blocks, row.block / kWarp, fit, s.gpu.sm_count);
    std::printf("| %s | %d | %u | %d | %.1f (%.0f%%) | %.3f | %.0f | %.0f | %.0e |\n", row.name, row.block, blocks, fit,
                warps, 100 * warps / max_warps, ms, gbps, 100 * gbps / s.ceilings.peak_gbps(), difference);
  }
}

// ---- The GPU against the CPU --------------------------------------------------------

void against_cpu(Setup& s, const std::vector<std::size_t>& sides) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::printf("\n## The GPU against the CPU\n\n");
  std::printf("CPU: %s, %u threads, A row-major, each thread whole rows (bench/gemv_on_cpu.hpp). GPU: a warp per row "
              "(step 4), 256 threads per block. Copies: A, x and y to the GPU, y back; from ordinary (pageable) "
              "host memory, as NumPy arrays are, and from the same memory pinned (cudaHostRegister). "
              "\"x faster\": the CPU's time over the GPU's (above 1, the GPU wins). Break-even: how many GEMVs "
              "with the same A the GPU must do per copy of A to win.\n\n",
              cpu_name().c_str(), threads);
  std::printf("| N | A | CPU ms | CPU GB/s | GPU kernel ms | GPU GB/s | copies ms, pageable | copies ms, pinned "
              "| x faster, kernel only | x faster, pageable copies | x faster, pinned copies | break-even, pinned | agrees |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (std::size_t n : sides) {
    const double matrix_bytes = sizeof(double) * static_cast<double>(n) * n;
    if (matrix_bytes > static_cast<double>(s.gpu.global_memory_bytes) / 2 ||
        matrix_bytes > static_cast<double>(host_memory_bytes()) / 4) {
      std::printf("| %zu | %s | (does not fit here: skipped) |\n", n, memlab::format_bytes(matrix_bytes).c_str());
      continue;
    }
    std::vector<double> a_host(n * n), x_host(n), y_start(n), y_cpu(n), y_gpu(n);
    fill_host(a_host, 1);
    fill_host(x_host, 2);
    fill_host(y_start, 3);
    const double cpu_ms = wall_ms([&] { gemv_on_cpu(n, n, kAlpha, a_host.data(), x_host.data(), kBeta, y_cpu.data()); }, 5);
    y_cpu = y_start;
    gemv_on_cpu(n, n, kAlpha, a_host.data(), x_host.data(), kBeta, y_cpu.data());

    memlab::DeviceBuffer<double> a(n * n), x(n), y(n);
    const auto copies = [&] {
      MEMLAB_CHECK(cudaMemcpy(a.data(), a_host.data(), a.bytes(), cudaMemcpyHostToDevice));
      MEMLAB_CHECK(cudaMemcpy(x.data(), x_host.data(), x.bytes(), cudaMemcpyHostToDevice));
      MEMLAB_CHECK(cudaMemcpy(y.data(), y_start.data(), y.bytes(), cudaMemcpyHostToDevice));
      MEMLAB_CHECK(cudaMemcpy(y_gpu.data(), y.data(), y.bytes(), cudaMemcpyDeviceToHost));
    };
    const double pageable_ms = wall_ms(copies, 3);
    // Pinning 8 GB can be refused (a limit on locked memory): then the column says so.
    double pinned_ms = -1.0;
    if (cudaHostRegister(a_host.data(), a.bytes(), cudaHostRegisterDefault) == cudaSuccess) {
      pinned_ms = wall_ms(copies, 3);
      MEMLAB_CHECK(cudaHostUnregister(a_host.data()));
    } else {
      (void)cudaGetLastError();
    }
    const unsigned blocks = blocks_for(n * kWarp, 256);
    const auto kernel = [&](cudaStream_t stream) {
      warp_per_row<<<blocks, 256, 0, stream>>>(n, n, a.data(), x.data(), y.data());
      MEMLAB_CHECK_LAUNCH();
    };
    y.upload(y_start, s.stream);
    kernel(s.stream);
    const double difference = max_relative_difference(y.to_host(n, s.stream), y_cpu);
    const double gpu_ms = s.median_ms(kernel);

    const double bytes = gemv_bytes(n);
    const std::string pinned = pinned_ms < 0 ? "refused" : memlab::format_text("%.1f", pinned_ms);
    const std::string pinned_speedup = pinned_ms < 0 ? "-" : memlab::format_text("%.2f", cpu_ms / (pinned_ms + gpu_ms));
    // k GEMVs on one copy: copies + k * kernel < k * cpu, when the CPU is slower than the kernel.
    const std::string break_even = pinned_ms < 0 || cpu_ms <= gpu_ms
                                       ? "-"
                                       : memlab::format_text("%.1f", pinned_ms / (cpu_ms - gpu_ms));
    std::printf("| %zu | %s | %.2f | %.0f | %.3f | %.0f | %.1f | %s | %.1f | %.2f | %s | %s | %.0e |\n", n,
                memlab::format_bytes(matrix_bytes).c_str(), cpu_ms, memlab::gigabytes_per_second(bytes, cpu_ms), gpu_ms,
                memlab::gigabytes_per_second(bytes, gpu_ms), pageable_ms, pinned.c_str(), cpu_ms / gpu_ms,
                cpu_ms / (pageable_ms + gpu_ms), pinned_speedup.c_str(), break_even.c_str(), difference);
    std::fflush(stdout);
  }
}

std::vector<std::size_t> parse_sides(const char* text) {
  std::vector<std::size_t> sides;
  for (const char* p = text; *p;) {
    char* end = nullptr;
    const unsigned long long side = std::strtoull(p, &end, 10);
    if (end == p || side == 0) return {};
    sides.push_back(side);
    p = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0') return {};
  }
  return sides;
}

int usage() {
  std::fprintf(stderr, "usage: bench_lab5_gemv [--blocks N] [--cpu N,N,...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t block_side = 20000;
  std::vector<std::size_t> cpu_sides = {2048, 8192, 20000, 32768};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--blocks" && i + 1 < argc) {
      const std::vector<std::size_t> side = parse_sides(argv[++i]);
      if (side.size() != 1) return usage();
      block_side = side[0];
    } else if (arg == "--cpu" && i + 1 < argc) {
      cpu_sides = parse_sides(argv[++i]);
      if (cpu_sides.empty()) return usage();
    } else {
      return usage();
    }
  }
  if (const auto why = memlab::why_no_gpu()) {
    std::printf("no GPU: %s\n", why->c_str());
    return 77;
  }
  try {
    Setup setup;
    std::printf("# Lab 5 measurements: %s\n\n", setup.gpu.summary().c_str());
    std::printf("driver %d, runtime %d; peak %.0f GB/s (%s); every GPU time is the median of 21 runs, L2 flushed "
                "before each; CPU and copy times are medians of 5 and 3 runs on the host clock.\n",
                setup.gpu.driver_version, setup.gpu.runtime_version, setup.ceilings.peak_gbps(),
                setup.ceilings.peak_source());
    // Two matrices (row- and column-major) must fit in half the device memory.
    while (block_side > 1024 && 2 * sizeof(double) * block_side * block_side > setup.gpu.global_memory_bytes / 2) {
      block_side -= 1024;
    }
    block_sizes(setup, block_side);
    against_cpu(setup, cpu_sides);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_lab5_gemv: %s\n", error.what());
    return 1;
  }
  return 0;
}
