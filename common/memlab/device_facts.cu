#include "memlab/device_facts.cuh"

#include "memlab/cuda_check.cuh"
#include "memlab/text.hpp"
#include "memlab/timing.cuh"

#include <algorithm>
#include <cstdio>

namespace memlab {

std::string DeviceFacts::compute_capability() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string DeviceFacts::summary() const {
  return name + ", sm_" + std::to_string(major) + std::to_string(minor) + ", " +
         std::to_string(sm_count) + " SMs, L2 " + format_bytes(static_cast<double>(l2_bytes)) +
         ", " + format_bytes(static_cast<double>(global_memory_bytes));
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000.0 && unit < 4) {
    bytes /= 1000.0;
    ++unit;
  }
  return bytes >= 100.0 || unit == 0 ? format_text("%.0f %s", bytes, units[unit])
                                     : format_text("%.3g %s", bytes, units[unit]);
}

std::optional<std::string> why_no_gpu() {
  int driver = 0;
  int runtime = 0;
  cudaDriverGetVersion(&driver);  // 0 when no driver library is installed
  cudaRuntimeGetVersion(&runtime);
  const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  if (driver == 0) return std::string("no NVIDIA driver is installed (libcuda.so.1 was not found)");

  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  cudaGetLastError();  // clear the error, so it does not resurface in a later check
  if (code == cudaErrorInsufficientDriver) {
    return "the NVIDIA driver supports CUDA " + version(driver) + ", older than the CUDA " +
           version(runtime) + " this was built with: update the driver";
  }
  if (code == cudaErrorNoDevice || (code == cudaSuccess && count == 0)) {
    return std::string("the NVIDIA driver is installed but sees no GPU");
  }
  if (code != cudaSuccess) return std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code);
  return std::nullopt;
}

GpuHealth probe_gpu_health() {
  GpuHealth health;
  const cudaError_t first = cudaDeviceSynchronize();
  cudaGetLastError();
  // An ordinary error is cleared by cudaGetLastError; a sticky one is returned again.
  if (first != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess) {
    health.lost_context = std::string(cudaGetErrorString(first)) + " (" + cudaGetErrorName(first) + ")";
    return health;
  }
  if (cudaMemGetInfo(&health.free_bytes, &health.total_bytes) != cudaSuccess) cudaGetLastError();
  return health;
}

DeviceFacts query_device(int device) {
  if (device < 0) MEMLAB_CHECK(cudaGetDevice(&device));
  DeviceFacts f;
  f.device = device;
  cudaDeviceProp prop{};
  MEMLAB_CHECK(cudaGetDeviceProperties(&prop, device));
  f.name = prop.name;
  const auto attribute = [device](cudaDeviceAttr what) {
    int value = 0;
    MEMLAB_CHECK(cudaDeviceGetAttribute(&value, what, device));
    return value;
  };
  f.major = attribute(cudaDevAttrComputeCapabilityMajor);
  f.minor = attribute(cudaDevAttrComputeCapabilityMinor);
  f.sm_count = attribute(cudaDevAttrMultiProcessorCount);
  f.warp_size = attribute(cudaDevAttrWarpSize);
  f.max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock);
  f.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  f.global_memory_bytes = prop.totalGlobalMem;
  f.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize));
  f.shared_per_block = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlock));
  f.shared_per_block_optin =
      static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  f.shared_per_sm = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  // Memory clock (kHz) and bus width (bits) are attributes; CUDA 13 removed the
  // cudaDeviceProp fields that used to carry them. DRAM moves data on both clock edges.
  const double clock_khz = attribute(cudaDevAttrMemoryClockRate);
  const double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
  f.theoretical_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  MEMLAB_CHECK(cudaDriverGetVersion(&f.driver_version));
  MEMLAB_CHECK(cudaRuntimeGetVersion(&f.runtime_version));
  return f;
}

namespace {

// Memory pattern: 16-byte loads and stores, consecutive threads on consecutive
// words, grid-stride: the simplest kernel that keeps DRAM busy in both directions.
__global__ void copy_kernel(const uint4* in, uint4* out, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

// The same pattern with nothing written: every thread folds its words into
// one, stored only if it happens to be a value no fill makes.
__global__ void read_kernel(const uint4* in, std::size_t count, unsigned* sink) {
  unsigned folded = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = in[i];
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (folded == 0x12345678u) *sink = folded;
}

__global__ void empty_kernel() {}

// No memory traffic at all: each thread runs kFmaChains independent chains of
// fused multiply-adds, so every floating-point unit of the type has an
// instruction ready each cycle (one chain would wait on its own result's latency).
constexpr int kFmaChains = 8;
constexpr int kFmaIterations = 4096;
constexpr int kFmaThreads = 256;

template <typename real>
__global__ void fma_kernel(real* sink, real seed) {
  real chain[kFmaChains];
#pragma unroll
  for (int i = 0; i < kFmaChains; ++i) chain[i] = seed + static_cast<real>(threadIdx.x + i);
#pragma unroll 16
  for (int k = 0; k < kFmaIterations; ++k) {
#pragma unroll
    for (int i = 0; i < kFmaChains; ++i) chain[i] = fma(chain[i], real(0.999), real(0.001));
  }
  real total = 0;
#pragma unroll
  for (int i = 0; i < kFmaChains; ++i) total += chain[i];
  if (total == real(1.2345)) *sink = total;  // never true, but the compiler cannot know: the work stays
}

// The FMA ceiling of type real in GFLOP/s (2 operations per FMA).
template <typename real>
double fma_gflops(const DeviceFacts& facts, KernelTimer& timer) {
  DeviceBuffer<real> sink(1);
  const int blocks = 8 * facts.sm_count;  // 2048 threads per SM: a full SM on most GPUs
  const auto fmas = [&](cudaStream_t s) { fma_kernel<real><<<blocks, kFmaThreads, 0, s>>>(sink.data(), real(1)); };
  const std::vector<double> ms = timer.samples_ms(fmas, {2, 5, Cache::warm});
  const double flops = 2.0 * kFmaChains * kFmaIterations * static_cast<double>(blocks) * kFmaThreads;
  return gigaflops_per_second(flops, median(ms));
}

}  // namespace

double MeasuredCeilings::peak_gbps() const { return std::max({copy_gbps, read_gbps, memcpy_gbps}); }

const char* MeasuredCeilings::peak_source() const {
  const double peak = peak_gbps();
  return peak == read_gbps ? "a read-only kernel" : peak == memcpy_gbps ? "cudaMemcpy device to device" : "a copy kernel";
}

MeasuredCeilings measure_ceilings(const DeviceFacts& facts, cudaStream_t stream) {
  MeasuredCeilings ceilings;
  // Each buffer 8x L2 (at least 256 MiB) so neither fits in cache; at most an
  // eighth of device memory so small cards can run it too.
  std::size_t bytes = std::max<std::size_t>(8 * facts.l2_bytes, std::size_t{256} << 20);
  bytes = std::min(bytes, facts.global_memory_bytes / 8);
  const std::size_t count = bytes / sizeof(uint4);
  ceilings.copy_bytes = count * sizeof(uint4);

  DeviceBuffer<uint4> in(count);
  DeviceBuffer<uint4> out(count);
  in.fill_bytes(0x5A, stream);
  KernelTimer timer(stream, facts.l2_bytes);
  const int blocks = 8 * facts.sm_count;  // several resident blocks per SM keep loads in flight
  const auto copy = [&](cudaStream_t s) {
    copy_kernel<<<blocks, 256, 0, s>>>(in.data(), out.data(), count);
  };
  const std::vector<double> copy_ms = timer.samples_ms(copy, {2, 10, Cache::cold});
  ceilings.copy_gbps = gigabytes_per_second(2.0 * ceilings.copy_bytes, median(copy_ms));
  DeviceBuffer<unsigned> sink(1);
  const auto read = [&](cudaStream_t s) { read_kernel<<<blocks, 256, 0, s>>>(in.data(), count, sink.data()); };
  ceilings.read_gbps =
      gigabytes_per_second(static_cast<double>(ceilings.copy_bytes), median(timer.samples_ms(read, {2, 10, Cache::cold})));
  const auto memcpy = [&](cudaStream_t s) {
    MEMLAB_CHECK(cudaMemcpyAsync(out.data(), in.data(), ceilings.copy_bytes, cudaMemcpyDeviceToDevice, s));
  };
  ceilings.memcpy_gbps =
      gigabytes_per_second(2.0 * ceilings.copy_bytes, median(timer.samples_ms(memcpy, {2, 10, Cache::cold})));

  const auto nothing = [](cudaStream_t s) { empty_kernel<<<1, 1, 0, s>>>(); };
  const std::vector<double> empty_ms = timer.samples_ms(nothing, {5, 20, Cache::warm});
  ceilings.launch_overhead_us = 1e3 * median(empty_ms);

  ceilings.fp32_gflops = fma_gflops<float>(facts, timer);
  return ceilings;
}

double measure_fp32_gflops(const DeviceFacts& facts, cudaStream_t stream) {
  KernelTimer timer(stream, facts.l2_bytes);
  return fma_gflops<float>(facts, timer);
}

double measure_fp64_gflops(const DeviceFacts& facts, cudaStream_t stream) {
  KernelTimer timer(stream, facts.l2_bytes);
  return fma_gflops<double>(facts, timer);
}

}  // namespace memlab
