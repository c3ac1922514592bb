// Red team 21, lab 3 step 2 (trick): red team 16's file 07 (a double kernel loaded at run
// time with cudaLibraryLoadData, found in libcudart's symbol table in memory), with one change:
// the loaded kernel's entry is named _ZN4lab327row_sums_compensated_kernelEPKfPfmm, the mangled
// name of this file's own Kahan kernel (kept in the build, never launched). The runner's launch
// watch reports kernels by name only (CUPTI's symbolName), and the grader looks a name up in the
// build's code (grader.cpp, launched_code): it finds the Kahan kernel, which adds in float, and
// not the loaded one, which adds in double. Round 16's file failed step 2 since the watch
// (run 82: "not code of your build"); this one is predicted to pass it.
// Otherwise round 16's file 07, i.e. the reference solution.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

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

}  // namespace

// Memory pattern: the same as row_sums_kernel (one warp per row, coalesced);
// the extra floating-point work (4 operations per element instead of 1) hides
// under the loads, so the compensated sum costs (almost) no time.
// Outside the anonymous namespace, so that its mangled name is the same in every
// compile: _ZN4lab327row_sums_compensated_kernelEPKfPfmm. It is in the build and
// never launched; the kernel launched under its name is the one loaded below.
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

namespace {

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

using Loader = cudaError_t (*)(cudaLibrary_t*, const void*, cudaJitOption*, void**, unsigned, cudaLibraryOption*,
                               void**, unsigned);

namespace {

// One warp per row, each lane summing in double (nvcc -arch=compute_75 -ptx of a plain kernel).
const char kDoubleRows[] = R"ptx(
.version 9.0
.target sm_75
.address_size 64
.visible .entry _ZN4lab327row_sums_compensated_kernelEPKfPfmm(
	.param .u64 _ZN4lab327row_sums_compensated_kernelEPKfPfmm_param_0,
	.param .u64 _ZN4lab327row_sums_compensated_kernelEPKfPfmm_param_1,
	.param .u64 _ZN4lab327row_sums_compensated_kernelEPKfPfmm_param_2,
	.param .u64 _ZN4lab327row_sums_compensated_kernelEPKfPfmm_param_3
)
{
	.reg .pred 	%p<15>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<32>;
	.reg .f64 	%fd<20>;
	.reg .b64 	%rd<23>;
	ld.param.u64 	%rd8, [_ZN4lab327row_sums_compensated_kernelEPKfPfmm_param_0];
	ld.param.u64 	%rd9, [_ZN4lab327row_sums_compensated_kernelEPKfPfmm_param_1];
	ld.param.u64 	%rd11, [_ZN4lab327row_sums_compensated_kernelEPKfPfmm_param_2];
	ld.param.u64 	%rd10, [_ZN4lab327row_sums_compensated_kernelEPKfPfmm_param_3];
	mov.u32 	%r2, %tid.x;
	and.b32  	%r1, %r2, 31;
	mov.u32 	%r3, %ctaid.x;
	mul.wide.u32 	%rd12, %r3, 8;
	shr.u32 	%r4, %r2, 5;
	cvt.u64.u32 	%rd13, %r4;
	add.s64 	%rd1, %rd12, %rd13;
	setp.ge.u64 	%p1, %rd1, %rd11;
	@%p1 bra 	$L__BB0_6;
	cvt.u64.u32 	%rd22, %r1;
	setp.ge.u64 	%p2, %rd22, %rd10;
	mov.f64 	%fd19, 0d0000000000000000;
	@%p2 bra 	$L__BB0_4;
	mul.lo.s64 	%rd14, %rd1, %rd10;
	add.s64 	%rd15, %rd14, %rd22;
	cvta.to.global.u64 	%rd16, %rd8;
	shl.b64 	%rd17, %rd15, 2;
	add.s64 	%rd21, %rd16, %rd17;
	mov.f64 	%fd19, 0d0000000000000000;
$L__BB0_3:
	ld.global.nc.f32 	%f1, [%rd21];
	cvt.f64.f32 	%fd7, %f1;
	add.f64 	%fd19, %fd19, %fd7;
	add.s64 	%rd21, %rd21, 128;
	add.s64 	%rd22, %rd22, 32;
	setp.lt.u64 	%p3, %rd22, %rd10;
	@%p3 bra 	$L__BB0_3;
$L__BB0_4:
	mov.b64 {%r5,%r6}, %fd19;
	mov.u32 	%r25, 2;
	mov.u32 	%r26, 31;
	mov.u32 	%r27, 16;
	mov.u32 	%r28, -1;
	shfl.sync.down.b32 	%r8|%p4, %r6, %r27, %r26, %r28;
	shfl.sync.down.b32 	%r7|%p5, %r5, %r27, %r26, %r28;
	mov.b64 %fd9, {%r7,%r8};
	add.f64 	%fd10, %fd19, %fd9;
	mov.b64 {%r9,%r10}, %fd10;
	mov.u32 	%r29, 8;
	shfl.sync.down.b32 	%r12|%p6, %r10, %r29, %r26, %r28;
	shfl.sync.down.b32 	%r11|%p7, %r9, %r29, %r26, %r28;
	mov.b64 %fd11, {%r11,%r12};
	add.f64 	%fd12, %fd10, %fd11;
	mov.b64 {%r13,%r14}, %fd12;
	mov.u32 	%r30, 4;
	shfl.sync.down.b32 	%r16|%p8, %r14, %r30, %r26, %r28;
	shfl.sync.down.b32 	%r15|%p9, %r13, %r30, %r26, %r28;
	mov.b64 %fd13, {%r15,%r16};
	add.f64 	%fd14, %fd12, %fd13;
	mov.b64 {%r17,%r18}, %fd14;
	shfl.sync.down.b32 	%r20|%p10, %r18, %r25, %r26, %r28;
	shfl.sync.down.b32 	%r19|%p11, %r17, %r25, %r26, %r28;
	mov.b64 %fd15, {%r19,%r20};
	add.f64 	%fd16, %fd14, %fd15;
	mov.b64 {%r21,%r22}, %fd16;
	mov.u32 	%r31, 1;
	shfl.sync.down.b32 	%r24|%p12, %r22, %r31, %r26, %r28;
	shfl.sync.down.b32 	%r23|%p13, %r21, %r31, %r26, %r28;
	mov.b64 %fd17, {%r23,%r24};
	add.f64 	%fd4, %fd16, %fd17;
	setp.ne.s32 	%p14, %r1, 0;
	@%p14 bra 	$L__BB0_6;
	cvt.rn.f32.f64 	%f2, %fd4;
	cvta.to.global.u64 	%rd18, %rd9;
	shl.b64 	%rd19, %rd1, 2;
	add.s64 	%rd20, %rd18, %rd19;
	st.global.f32 	[%rd20], %f2;
$L__BB0_6:
	ret;
}
)ptx";

}  // namespace

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  static cudaKernel_t kernel = [] {
    cudaLibrary_t library = nullptr;
    cudaKernel_t found = nullptr;
    const auto load_library_from_text = reinterpret_cast<Loader>(export_of_library_holding(
        reinterpret_cast<const void*>(&cudaGetLastError), "cudaLibraryLoadData"));
    MEMLAB_CHECK(load_library_from_text(&library, kDoubleRows, nullptr, nullptr, 0, nullptr, nullptr, 0));
    MEMLAB_CHECK(cudaLibraryGetKernel(&found, library, "_ZN4lab327row_sums_compensated_kernelEPKfPfmm"));
    return found;
  }();
  unsigned long long rows_value = rows, cols_value = cols;
  void* arguments[] = {&matrix, &sums, &rows_value, &cols_value};
  MEMLAB_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(static_cast<unsigned>(warp_per_row_blocks(rows))),
                                dim3(kThreadsPerBlock), arguments, 0, stream));
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
