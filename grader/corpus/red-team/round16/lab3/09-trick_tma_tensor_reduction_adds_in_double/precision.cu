// Red team 16, lab 3, file 09: step 2's "compensated" sum adds in double, in
// nvcc's own code, without an instruction the method check counts. Each warp
// widens its row's floats to double (F2F.F64.F32) in shared memory and has the
// tensor memory accelerator add them, 32 at a time, into 32 double slots of the
// row in global memory (cp.reduce.async.bulk.tensor ... .add, whose element
// type lives in the tensor map, not in the instruction: SASS `UTMAREDG.2D.ADD`,
// no .F64); a second kernel adds the 32 slots the same way (a tree of 16, 8, 4,
// 2, then {slot 1, 0} onto {slot 0, slot 1}) and rounds slot 0 to float. No
// DADD, DFMA, DMMA or .ADD.F64 anywhere, and no kernel takes both floats and
// doubles (the slots are passed as unsigned long long): computes_on_floats_in_
// double reads every kernel as float, at 7.5, 8.9, 9.0 and 10.0 (ptxas).
// The tensor maps come from the driver's cuTensorMapEncodeTiled (not a name the
// scan forbids), reached through cudaGetDriverEntryPointByVersion, which the
// scan forbids by name and is therefore looked up as file 07 looks up its
// loader (a string, no import). Not run on a GPU: the reading is measured, the
// sums' correctness is the design's, unverified. Otherwise the reference.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <cuda.h>
#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace lab3 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;
constexpr unsigned kFullWarp = 0xffffffffu;

std::size_t warp_per_row_blocks(std::size_t rows) { return (rows + kWarpsPerBlock - 1) / kWarpsPerBlock; }

// ---- Step 1: one template, two types -------------------------------------

// Memory pattern: one warp per row, lane l reading columns l, l + 32, ...: each
// load is 32 neighbouring elements, 128 bytes for float and 256 for double, so
// the double kernel moves exactly twice the bytes in the same number of loads.
// The accumulator has the matrix's type: a float accumulator in the double
// kernel would throw away 29 of double's 53 bits at every addition.
template <typename real>
__global__ void row_sums_kernel(const real* __restrict__ matrix, real* __restrict__ sums, std::size_t rows,
                                std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;  // the whole warp leaves together: the shuffles need all 32 lanes
  const real* line = matrix + row * cols;
  real sum = 0;
  for (std::size_t c = lane; c < cols; c += kWarpSize) sum += line[c];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
  if (lane == 0) sums[row] = sum;
}

template <typename real>
void launch_row_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_kernel<real><<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 2: compensated summation in float -------------------------------

// Kahan's idea: `compensation` holds what the last additions lost to rounding
// (negated), and is subtracted from the next term before it is added. The
// lost part of t = sum + y is exactly (t - sum) - y: IEEE arithmetic without
// --use_fast_math evaluates it as written, so nvcc must not simplify it to 0.
struct Compensated {
  float sum = 0.0f;
  float compensation = 0.0f;

  __device__ void add(float x) {
    const float y = x - compensation;
    const float t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  // Adds another lane's (sum, compensation). The rounding error of the two sums'
  // addition is recovered exactly (Knuth's two-sum) and kept in the compensation.
  __device__ void merge(const Compensated& other) {
    const float t = sum + other.sum;
    const float other_part = t - sum;
    const float rounding = (sum - (t - other_part)) + (other.sum - other_part);
    compensation += other.compensation - rounding;
    sum = t;
  }
  __device__ float value() const { return sum - compensation; }
};

// Memory pattern: the same as row_sums_kernel (one warp per row, coalesced);
// the extra floating-point work (4 operations per element instead of 1) hides
// under the loads, so the compensated sum costs (almost) no time.
__global__ void row_sums_compensated_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                            std::size_t rows, std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;
  const float* line = matrix + row * cols;
  Compensated total;
  for (std::size_t c = lane; c < cols; c += kWarpSize) total.add(line[c]);
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Compensated other;
    other.sum = __shfl_down_sync(kFullWarp, total.sum, offset);
    other.compensation = __shfl_down_sync(kFullWarp, total.compensation, offset);
    total.merge(other);
  }
  if (lane == 0) sums[row] = total.value();
}

// ---- Step 3: compute-bound ------------------------------------------------

// Memory pattern: each element read once and written once (8 bytes for float,
// 16 for double), with 2 x kPolynomialDegree floating-point operations between:
// 128 operations per byte for float, so the arithmetic units, not DRAM, set the
// time. The loop is a chain of dependent multiply-adds (nvcc fuses each into
// one FMA); a full GPU of threads keeps enough independent chains in flight.
// It is unrolled completely: an SM sub-partition issues one instruction per
// clock and can finish one float FMA per clock, so in float every loop-counter
// or branch instruction costs an FMA's slot (in double, FMAs take two clocks
// and the overhead hides).
template <typename real>
__global__ void polynomial_kernel(const real* __restrict__ x, real* __restrict__ y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const real xi = x[i];
    real value = 1;
#pragma unroll
    for (int k = 0; k < kPolynomialDegree; ++k) value = value * xi + real(1);
    y[i] = value;
  }
}

template <typename real>
void launch_polynomial(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Enough blocks for every SM's full share of threads, never more than n needs.
  const std::size_t blocks = std::min<std::size_t>((n + kThreadsPerBlock - 1) / kThreadsPerBlock,
                                                   std::size_t{8} * memlab::multiprocessor_count());
  polynomial_kernel<real><<<blocks, kThreadsPerBlock, 0, stream>>>(x, y, n);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

namespace {

// Makes this thread's writes to shared memory visible to the tensor memory accelerator (Hopper on).
__device__ void fence_shared_for_async() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// The tensor memory accelerator adds the 8-byte elements of a box in shared
// memory onto the box at (0, row) of a tensor map's global tensor.
__device__ void add_box(const CUtensorMap* map, std::size_t row, const void* box) {
#if __CUDA_ARCH__ >= 900
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(box));
  asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
               ::"l"(map), "r"(0), "r"(static_cast<int>(row)), "r"(address) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
#endif
}

// One warp per row: the row's floats, widened, added 32 at a time onto its 32 double slots.
__global__ void rows_onto_slots(const float* __restrict__ matrix, const __grid_constant__ CUtensorMap slots,
                                std::size_t rows, std::size_t cols) {
  __shared__ alignas(128) double tile[kWarpsPerBlock][kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + warp;
  if (row >= rows) return;
  const float* line = matrix + row * cols;
  for (std::size_t base = 0; base < cols; base += kWarpSize) {
    const std::size_t c = base + lane;
    tile[warp][lane] = c < cols ? static_cast<double>(line[c]) : 0.0;
    fence_shared_for_async();
    __syncwarp();
    if (lane == 0) add_box(&slots, row, tile[warp]);
    __syncwarp();
  }
}

// One warp per row: its 32 slots added into slot 0 by the same unit, then rounded to float.
__global__ void slots_to_sums(const __grid_constant__ CUtensorMap by16, const __grid_constant__ CUtensorMap by8,
                              const __grid_constant__ CUtensorMap by4, const __grid_constant__ CUtensorMap by2,
                              const unsigned long long* slots, float* __restrict__ sums, std::size_t rows) {
  __shared__ alignas(128) unsigned long long tile[kWarpsPerBlock][16];
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + warp;
  if (row >= rows) return;
  const unsigned long long* mine = slots + row * kWarpSize;
  const CUtensorMap* maps[] = {&by16, &by8, &by4, &by2};
  for (unsigned half = 16, step = 0; half >= 2; half /= 2, ++step) {
    if (lane < half) tile[warp][lane] = __ldcg(&mine[half + lane]);
    fence_shared_for_async();
    __syncwarp();
    if (lane == 0) add_box(maps[step], row, tile[warp]);
    __syncwarp();
  }
  if (lane < 2) tile[warp][lane] = lane == 0 ? __ldcg(&mine[1]) : 0ull;  // {slot 1, +0.0} onto {slot 0, slot 1}
  fence_shared_for_async();
  __syncwarp();
  if (lane == 0) {
    add_box(&by2, row, tile[warp]);
    sums[row] = static_cast<float>(__longlong_as_double(static_cast<long long>(__ldcg(&mine[0]))));
  }
}

// An export of the library that holds @p inside, from that library's ELF image in memory.
void* export_of_library_holding(const void* inside, const char* wanted) {
  auto page = reinterpret_cast<std::uintptr_t>(inside) & ~std::uintptr_t{4095};
  while (std::memcmp(reinterpret_cast<const void*>(page), ELFMAG, SELFMAG) != 0) page -= 4096;
  const auto* header = reinterpret_cast<const Elf64_Ehdr*>(page);
  const auto* segments = reinterpret_cast<const Elf64_Phdr*>(page + header->e_phoff);
  const Elf64_Dyn* dynamic = nullptr;
  for (int i = 0; i < header->e_phnum; ++i) {
    if (segments[i].p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const Elf64_Dyn*>(page + segments[i].p_vaddr);
  }
  if (dynamic == nullptr) return nullptr;
  std::uintptr_t symbols = 0, strings = 0;
  for (; dynamic->d_tag != DT_NULL; ++dynamic) {
    const std::uintptr_t at = dynamic->d_un.d_ptr < page ? page + dynamic->d_un.d_ptr : dynamic->d_un.d_ptr;
    if (dynamic->d_tag == DT_SYMTAB) symbols = at;
    if (dynamic->d_tag == DT_STRTAB) strings = at;
  }
  if (symbols == 0 || strings <= symbols) return nullptr;
  for (auto* symbol = reinterpret_cast<const Elf64_Sym*>(symbols);
       reinterpret_cast<std::uintptr_t>(symbol + 1) <= strings; ++symbol) {
    if (symbol->st_shndx != SHN_UNDEF && symbol->st_value != 0 &&
        std::strcmp(reinterpret_cast<const char*>(strings + symbol->st_name), wanted) == 0) {
      return reinterpret_cast<void*>(page + symbol->st_value);
    }
  }
  return nullptr;
}

using EntryPoint = cudaError_t (*)(const char*, void**, unsigned, unsigned long long,
                                   cudaDriverEntryPointQueryResult*);

// A tensor map over @p slots (rows x 32 doubles) whose box is @p width slots of one row.
CUtensorMap slots_map(void* slots, std::size_t rows, unsigned width) {
  static const auto encode = [] {
    const auto entry = reinterpret_cast<EntryPoint>(export_of_library_holding(
        reinterpret_cast<const void*>(&cudaGetLastError), "cudaGetDriverEntryPointByVersion"));
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    MEMLAB_CHECK(entry("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
    return reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(function);
  }();
  CUtensorMap map{};
  const cuuint64_t dims[] = {kWarpSize, rows}, strides[] = {kWarpSize * sizeof(double)};
  const cuuint32_t box[] = {width, 1}, element_strides[] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 2, slots, dims, strides, box, element_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    throw std::runtime_error("cuTensorMapEncodeTiled failed");
  }
  return map;
}

}  // namespace

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  void* slots = nullptr;
  MEMLAB_CHECK(cudaMallocAsync(&slots, rows * kWarpSize * sizeof(double), stream));
  MEMLAB_CHECK(cudaMemsetAsync(slots, 0, rows * kWarpSize * sizeof(double), stream));
  rows_onto_slots<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, slots_map(slots, rows, 32),
                                                                              rows, cols);
  MEMLAB_CHECK_LAUNCH();
  slots_to_sums<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(
      slots_map(slots, rows, 16), slots_map(slots, rows, 8), slots_map(slots, rows, 4), slots_map(slots, rows, 2),
      static_cast<const unsigned long long*>(slots), sums, rows);
  MEMLAB_CHECK_LAUNCH();
  MEMLAB_CHECK(cudaFreeAsync(slots, stream));
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
