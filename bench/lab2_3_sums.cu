// Measurements behind labs 2 and 3: row and column sums written several ways,
// in float and in double, against the copy ceiling, and the polynomial of
// lab 3 step 3 as a compute-bound contrast. Prints Markdown tables.
// Its kernels are variants the labs' functions cannot express (a type, an
// unroll, partial sums as template parameters), so they are written here;
// the references themselves are timed through their plugins by `make bench`
// (performance.cu).
//
//   build/bench/bench_lab2_3_sums [side ...]     (square matrix sides; default 11264 16384)

#include <memlab/device_facts.cuh>
#include <memlab/device_random.cuh>
#include <memlab/report.hpp>
#include <memlab/stats.hpp>
#include <memlab/timing.cuh>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using memlab::format_text;

namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = kThreads / kWarp;
constexpr unsigned kFull = 0xffffffffu;

// 1. One thread per row: 32 sectors per request, and only `rows` threads.
template <typename real>
__global__ void row_thread_per_row(const real* m, real* sums, std::size_t rows, std::size_t cols) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  real sum = 0;
  for (std::size_t c = 0; c < cols; ++c) sum += m[row * cols + c];
  sums[row] = sum;
}

// 2. One thread per column: coalesced, but only `cols` threads.
template <typename real>
__global__ void column_thread_per_column(const real* m, real* sums, std::size_t rows, std::size_t cols) {
  const std::size_t col = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (col >= cols) return;
  real sum = 0;
  for (std::size_t r = 0; r < rows; ++r) sum += m[r * cols + col];
  sums[col] = sum;
}

template <typename real>
__device__ real warp_total(real sum) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFull, sum, offset);
  return sum;
}

// 3. Warp per row, the plain strided loop.
template <typename real>
__global__ void row_warp_plain(const real* __restrict__ m, real* __restrict__ sums, std::size_t rows,
                               std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarp;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarp;
  if (row >= rows) return;
  const real* line = m + row * cols;
  real sum = 0;
  for (std::size_t c = lane; c < cols; c += kWarp) sum += line[c];
  sum = warp_total(sum);
  if (lane == 0) sums[row] = sum;
}

// 4. Warp per row, the same loop under #pragma unroll 4.
template <typename real>
__global__ void row_warp_pragma_unroll(const real* __restrict__ m, real* __restrict__ sums, std::size_t rows,
                                       std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarp;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarp;
  if (row >= rows) return;
  const real* line = m + row * cols;
  real sum = 0;
#pragma unroll 4
  for (std::size_t c = lane; c < cols; c += kWarp) sum += line[c];
  sum = warp_total(sum);
  if (lane == 0) sums[row] = sum;
}

// 5. Warp per row, four independent accumulators: four loads in flight per lane.
template <typename real>
__global__ void row_warp_four_sums(const real* __restrict__ m, real* __restrict__ sums, std::size_t rows,
                                   std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarp;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarp;
  if (row >= rows) return;
  const real* line = m + row * cols;
  real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t c = lane;
  for (; c + 3 * kWarp < cols; c += 4 * kWarp) {
    s0 += line[c];
    s1 += line[c + kWarp];
    s2 += line[c + 2 * kWarp];
    s3 += line[c + 3 * kWarp];
  }
  for (; c < cols; c += kWarp) s0 += line[c];
  const real sum = warp_total((s0 + s1) + (s2 + s3));
  if (lane == 0) sums[row] = sum;
}

// 6. Column sums: 32 columns per block, rows split into chunks, atomicAdd of partial sums.
template <typename real>
__global__ void column_split(const real* __restrict__ m, real* __restrict__ sums, std::size_t rows,
                             std::size_t cols, std::size_t rows_per_chunk) {
  constexpr int kRowLanes = kThreads / kWarp;
  __shared__ real partial[kRowLanes][kWarp];
  const unsigned column_in_tile = threadIdx.x % kWarp;
  const unsigned row_lane = threadIdx.x / kWarp;
  const std::size_t col = blockIdx.x * static_cast<std::size_t>(kWarp) + column_in_tile;
  const std::size_t first = blockIdx.y * rows_per_chunk;
  const std::size_t end = first + rows_per_chunk < rows ? first + rows_per_chunk : rows;
  real sum = 0;
  if (col < cols) {
    for (std::size_t r = first + row_lane; r < end; r += kRowLanes) sum += m[r * cols + col];
  }
  partial[row_lane][column_in_tile] = sum;
  __syncthreads();
  if (row_lane == 0 && col < cols) {
    real total = 0;
    for (int i = 0; i < kRowLanes; ++i) total += partial[i][column_in_tile];
    atomicAdd(&sums[col], total);
  }
}

// 7. Lab 3's polynomial, Horner with kDegree FMAs per element, unrolled by 16 or fully.
constexpr int kDegree = 512;
template <typename real, bool kFullUnroll>
__global__ void polynomial(const real* __restrict__ x, real* __restrict__ y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const real xi = x[i];
    real value = 1;
    if constexpr (kFullUnroll) {
#pragma unroll
      for (int k = 0; k < kDegree; ++k) value = value * xi + real(1);
    } else {
#pragma unroll 16
      for (int k = 0; k < kDegree; ++k) value = value * xi + real(1);
    }
    y[i] = value;
  }
}

unsigned blocks_for(std::size_t threads) { return static_cast<unsigned>((threads + kThreads - 1) / kThreads); }

struct Setup {
  memlab::DeviceFacts gpu = memlab::query_device();
  memlab::Stream stream;
  memlab::KernelTimer timer{stream, gpu.l2_bytes};
  memlab::MeasuredCeilings ceilings = memlab::measure_ceilings(gpu, stream);
  double median_ms(const memlab::Work& work) {
    return memlab::median(timer.samples_ms(work, {2, 21, memlab::Cache::cold}));
  }
};

// The row/column kernels of one type on one shape: milliseconds per kernel, in table order.
template <typename real>
std::vector<double> time_sums(Setup& setup, std::size_t side, unsigned chunks_per_sm_target) {
  const std::size_t rows = side, cols = side;
  memlab::DeviceBuffer<real> m(rows * cols), sums(side);
  memlab::fill_random(m.data(), m.size(), 1, -1.0, 1.0, setup.stream);
  const unsigned sms = static_cast<unsigned>(setup.gpu.sm_count);
  const std::size_t tiles = (cols + kWarp - 1) / kWarp;
  const auto column_work = [&](std::size_t chunks) -> memlab::Work {
    return [&, chunks](cudaStream_t s) {
      cudaMemsetAsync(sums.data(), 0, cols * sizeof(real), s);
      const std::size_t per_chunk = (rows + chunks - 1) / chunks;
      column_split<real><<<dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(chunks)), kThreads, 0, s>>>(
          m.data(), sums.data(), rows, cols, per_chunk);
    };
  };
  const unsigned warp_blocks = static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  std::vector<double> ms;
  ms.push_back(setup.median_ms([&](cudaStream_t s) {
    row_thread_per_row<real><<<blocks_for(rows), kThreads, 0, s>>>(m.data(), sums.data(), rows, cols);
  }));
  ms.push_back(setup.median_ms([&](cudaStream_t s) {
    column_thread_per_column<real><<<blocks_for(cols), kThreads, 0, s>>>(m.data(), sums.data(), rows, cols);
  }));
  ms.push_back(setup.median_ms([&](cudaStream_t s) {
    row_warp_plain<real><<<warp_blocks, kThreads, 0, s>>>(m.data(), sums.data(), rows, cols);
  }));
  ms.push_back(setup.median_ms([&](cudaStream_t s) {
    row_warp_pragma_unroll<real><<<warp_blocks, kThreads, 0, s>>>(m.data(), sums.data(), rows, cols);
  }));
  ms.push_back(setup.median_ms([&](cudaStream_t s) {
    row_warp_four_sums<real><<<warp_blocks, kThreads, 0, s>>>(m.data(), sums.data(), rows, cols);
  }));
  ms.push_back(setup.median_ms(column_work(1)));
  ms.push_back(setup.median_ms(column_work(std::max<std::size_t>(1, chunks_per_sm_target * sms / tiles))));
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  if (const auto why = memlab::why_no_gpu()) {
    std::printf("no GPU: %s\n", why->c_str());
    return 77;
  }
  std::vector<std::size_t> sides;
  for (int i = 1; i < argc; ++i) sides.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sides.empty()) sides = {11264, 16384};
  Setup setup;
  std::printf("# Labs 2 and 3 measurements: %s\n\n", setup.gpu.summary().c_str());
  std::printf("driver %d, runtime %d; copy kernel %.0f GB/s (bytes read + written); median of 21 runs, "
              "L2 flushed before each\n",
              setup.gpu.driver_version, setup.gpu.runtime_version, setup.ceilings.copy_gbps);
  const char* names[] = {"row sums, thread per row",           "column sums, thread per column",
                         "row sums, warp per row (plain loop)", "row sums, warp per row (#pragma unroll 4)",
                         "row sums, warp per row (4 accumulators)", "column sums, split, 1 chunk",
                         "column sums, split, 16 blocks per SM"};
  for (std::size_t side : sides) {
    const std::vector<double> f = time_sums<float>(setup, side, 16);
    const std::vector<double> d = time_sums<double>(setup, side, 16);
    const double float_bytes = static_cast<double>(side * side * sizeof(float));
    std::printf("\n## %zu x %zu (float %s, double %s)\n\n", side, side, memlab::format_bytes(float_bytes).c_str(),
                memlab::format_bytes(2 * float_bytes).c_str());
    std::printf("| kernel | float GB/s | %% of copy | double GB/s | %% of copy | double/float time |\n");
    std::printf("|---|---|---|---|---|---|\n");
    for (std::size_t k = 0; k < f.size(); ++k) {
      const double fg = memlab::gigabytes_per_second(float_bytes, f[k]);
      const double dg = memlab::gigabytes_per_second(2 * float_bytes, d[k]);
      std::printf("| %s | %.0f | %.1f | %.0f | %.1f | %.2f |\n", names[k], fg, 100 * fg / setup.ceilings.copy_gbps,
                  dg, 100 * dg / setup.ceilings.copy_gbps, d[k] / f[k]);
    }
  }

  const std::size_t n = std::size_t{1} << 24;
  memlab::DeviceBuffer<float> xf(n), yf(n);
  memlab::DeviceBuffer<double> xd(n), yd(n);
  memlab::fill_random(xf.data(), n, 2, -1.0, 1.0, setup.stream);
  memlab::fill_random(xd.data(), n, 2, -1.0, 1.0, setup.stream);
  const unsigned grid = 8 * static_cast<unsigned>(setup.gpu.sm_count);
  const double flops = 2.0 * kDegree * static_cast<double>(n);
  const auto gflops = [flops](double ms) { return memlab::gigaflops_per_second(flops, ms); };
  std::printf("\n## Polynomial, %d Horner steps on 2^24 elements (grid-stride, 8 blocks of 256 per SM)\n\n", kDegree);
  std::printf("| loop | float GFLOP/s | double GFLOP/s | double/float time |\n|---|---|---|---|\n");
  const double f16 = setup.median_ms([&](cudaStream_t s) { polynomial<float, false><<<grid, kThreads, 0, s>>>(xf.data(), yf.data(), n); });
  const double d16 = setup.median_ms([&](cudaStream_t s) { polynomial<double, false><<<grid, kThreads, 0, s>>>(xd.data(), yd.data(), n); });
  const double ffull = setup.median_ms([&](cudaStream_t s) { polynomial<float, true><<<grid, kThreads, 0, s>>>(xf.data(), yf.data(), n); });
  const double dfull = setup.median_ms([&](cudaStream_t s) { polynomial<double, true><<<grid, kThreads, 0, s>>>(xd.data(), yd.data(), n); });
  std::printf("| #pragma unroll 16 | %.0f | %.0f | %.2f |\n", gflops(f16), gflops(d16), d16 / f16);
  std::printf("| #pragma unroll (full) | %.0f | %.0f | %.2f |\n", gflops(ffull), gflops(dfull), dfull / ffull);
  MEMLAB_CHECK(cudaGetLastError());
  return 0;
}
