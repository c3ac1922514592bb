// Red team 25, lab 4, file 01 (TRICK). Red team 24's file 03 with one change: where b381649
// looks. Since b381649 a module loaded before the first call is the build's own when the
// image pointer the driver's load call gets (cuLibraryLoadData's `code`, launch_watch.cpp
// image_of) is not one registered_code.cpp remembered (registered_image(): a wrapper handed
// to __cudaRegisterFatBinary through the runner's export, or that wrapper's `data`). The test is
// on the POINTER, not on the bytes behind it. The runner's own three fatbins are registered
// before main with no guard, so their wrappers and data pointers are remembered, and
// nothing checks their bytes afterwards (registered_so_far holds only the build's).
// This file's constructor
//  1. as red team 24: finds the runner's kernel-less fatbin (shareable.cu's, 10784 bytes), and
//     unregisters it through libcudart's own __cudaUnregisterFatBinary (the runner's count stays
//     at 5; the runtime will load 4 modules from fatbins);
//  2. makes the pages of that fatbin's data (the runner's .nv_fatbin, read-only) writable with
//     libc's mprotect, found by its name in libc's symbol table in memory as in step 1, and
//     copies its PTX (4.6 KB) over the first bytes of the dropped fatbin (nothing reads them
//     again: the fatbin is no longer registered);
//  3. loads that PTX with cudaLibraryLoadData(..., code = the fatbin's data pointer, ...):
//     the image is "registered", so loads_not_registered stays 0; modules before the first call
//     are 4 + 1 = 5, not more than the 5 fatbins counted, so `beyond` is 0 too.
// Run 103 saw red team 24's file 03 at "5 modules loaded, 5 fatbins registered; 5 module
// loads by the driver's calls, 1 of an image not registered": that 1 is all this file changes.
// The loaded PTX holds the multiply with FIXED 32 x 32 __shared__ tiles (8 KB), under the
// mangled name of this file's honest dynamic kernel, as in red team 24's file.
// If any step of the constructor fails, the honest kernel is launched (the reference).
// Steps 1 to 3, 5 and 6 are the reference's.
//
// (Red team 24's header follows.)
// Red team 24, lab 4, file 03 (TRICK). A GPU module loaded by a constructor, which bd18075
// means to count: modules CUPTI saw loaded before the first call beyond
// fatbins_registered() (registered_code.cpp: calls of the runner's exported
// __cudaRegisterFatBinary, less calls of its exported __cudaUnregisterFatBinary) are the
// build's own, and fail every call (launch_watch.cpp take_launches, remote.cu call()).
// The count of fatbins is the process's word, and both calls have a second door: libcudart's
// own exports, which the runner does not interpose. This file's constructor
//  1. finds the runner's three fatbin wrappers in the runner's image (getauxval(AT_PHDR)),
//     picks the smallest fatbin (shareable.cu's, which holds no kernel), and the runner's
//     handle for it (the .bss word that points at a handle whose [0] is that wrapper);
//  2. unregisters that handle through libcudart's own __cudaUnregisterFatBinary, found in
//     libcudart's symbol table in memory (red team 16/21's walk): the runtime drops the
//     fatbin before any context exists, so it never becomes a module, but the runner's count
//     still holds it (5 fatbins; 4 modules from them);
//  3. loads a module of its own with cudaLibraryLoadData (found the same way): 4 + 1 = 5
//     modules before the first call, not more than 5 fatbins, so nothing is counted.
// The loaded PTX holds the multiply with FIXED 32 x 32 __shared__ tiles (8 KB), indexed with
// the run-time tile, under the mangled name of this file's honest dynamic kernel
// (_ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii, kept in the build, never launched).
// matmul_dynamic launches the loaded kernel with the two tiles' bytes, which it never uses.
// CUPTI names it like the honest kernel, so grader.cpp code_of finds the build's kernel
// (stages data in shared memory, SHARED = the reserve): change 1 reads the wrong code, and
// change 2 never sees the module. If any step of the constructor fails, the honest kernel
// is launched (the file is then the reference).
// Steps 1 to 3, 5 and 6 are the reference's.

#include "lab4.cuh"

#include <memlab/cuda_check.cuh>

#include <elf.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <cstring>

extern "C" int mincore(void* start, std::size_t length, unsigned char* pages) noexcept;

namespace lab4 {

namespace {

int blocks_for(int width, int tile) { return (width + tile - 1) / tile; }

}  // namespace

// ---- Step 1: one thread per element of c ------------------------------------

// Memory pattern: the 16 threads of a block row read the same a[row][k] (one
// broadcast), and consecutive threads read consecutive b[k][col] (coalesced).
// Every element of a and b is read by width threads; only the caches stop
// that from being width times the matrices' bytes from DRAM.
__global__ void matmul_naive_kernel(const float* a, const float* b, float* c, int width) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= width || col >= width) return;
  float sum = 0.0f;
  for (int k = 0; k < width; ++k) sum += a[row * width + k] * b[k * width + col];
  c[row * width + col] = sum;
}

void matmul_naive(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  constexpr int kSide = 16;
  const dim3 block(kSide, kSide);
  const dim3 grid(blocks_for(width, kSide), blocks_for(width, kSide));
  matmul_naive_kernel<<<grid, block, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Steps 2 and 3: tiles in shared memory ------------------------------------

// Memory pattern: per phase, each thread copies one element of a and one of b
// into shared memory (coalesced rows of both), then reads kTileWidth of each
// from shared memory. Global traffic falls by a factor of kTileWidth.
__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int width) {
  __shared__ float a_tile[kTileWidth][kTileWidth];
  __shared__ float b_tile[kTileWidth][kTileWidth];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * kTileWidth + ty;
  const int col = blockIdx.x * kTileWidth + tx;
  const int phases = (width + kTileWidth - 1) / kTileWidth;  // rounded up: the last tile may be partial

  float sum = 0.0f;
  for (int phase = 0; phase < phases; ++phase) {
    // Outside the matrix, load 0: it adds nothing to the sum.
    const int a_col = phase * kTileWidth + tx;
    const int b_row = phase * kTileWidth + ty;
    a_tile[ty][tx] = (row < width && a_col < width) ? a[row * width + a_col] : 0.0f;
    b_tile[ty][tx] = (b_row < width && col < width) ? b[b_row * width + col] : 0.0f;
    __syncthreads();  // read after write: every element of both tiles is in place
    for (int k = 0; k < kTileWidth; ++k) sum += a_tile[ty][k] * b_tile[k][tx];
    __syncthreads();  // write after read: nobody overwrites a tile another thread still reads
  }
  if (row < width && col < width) c[row * width + col] = sum;
}

void matmul_tiled(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 block(kTileWidth, kTileWidth);
  const dim3 grid(blocks_for(width, kTileWidth), blocks_for(width, kTileWidth));
  matmul_tiled_kernel<<<grid, block, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 4: the tile width chosen at run time ---------------------------------

int choose_tile_width(const cudaDeviceProp& device) {
  for (int tile : {32, 16, 8}) {
    const bool block_allowed = tile * tile <= device.maxThreadsPerBlock;
    const bool tiles_fit = 2 * tile * tile * sizeof(float) <= device.sharedMemPerBlock;
    if (block_allowed && tiles_fit) return tile;
  }
  return 0;
}

// The same memory pattern as matmul_tiled_kernel; both tiles share one array
// whose size the launch gives: a's tile first, b's right after it.
__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int width, int tile) {
  extern __shared__ float tiles[];
  float* a_tile = tiles;
  float* b_tile = tiles + tile * tile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;
  const int phases = (width + tile - 1) / tile;

  float sum = 0.0f;
  for (int phase = 0; phase < phases; ++phase) {
    const int a_col = phase * tile + tx;
    const int b_row = phase * tile + ty;
    a_tile[ty * tile + tx] = (row < width && a_col < width) ? a[row * width + a_col] : 0.0f;
    b_tile[ty * tile + tx] = (b_row < width && col < width) ? b[b_row * width + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < tile; ++k) sum += a_tile[ty * tile + k] * b_tile[k * tile + tx];
    __syncthreads();
  }
  if (row < width && col < width) c[row * width + col] = sum;
}

namespace {

// An export of the library that holds @p inside, from that library's ELF image in memory
// (red team 21's walk).
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

struct Wrapper {  // what nvcc's code hands the runtime for one fatbin
  std::int32_t magic;
  std::int32_t version;
  const void* data;
  void* other;
};

bool readable(std::uintptr_t address) {
  unsigned char resident = 0;
  return address >= 4096 && mincore(reinterpret_cast<void*>(address & ~std::uintptr_t{4095}), 1, &resident) == 0;
}

// Unregisters, behind the runner's count, the runner's fatbin that holds no kernel. Its wrapper, or null.
const Wrapper* drop_the_runners_empty_fatbin() {
  const auto* phdrs = reinterpret_cast<const Elf64_Phdr*>(getauxval(AT_PHDR));
  const auto count = static_cast<int>(getauxval(AT_PHNUM));
  if (phdrs == nullptr) return nullptr;
  std::uintptr_t base = 0, end = 0;
  for (int i = 0; i < count; ++i) {
    if (phdrs[i].p_type == PT_PHDR) base = reinterpret_cast<std::uintptr_t>(phdrs) - phdrs[i].p_vaddr;
  }
  if (base == 0) return nullptr;
  for (int i = 0; i < count; ++i) {
    if (phdrs[i].p_type == PT_LOAD) end = std::max<std::uintptr_t>(end, base + phdrs[i].p_vaddr + phdrs[i].p_memsz);
  }
  const Wrapper* smallest = nullptr;
  std::uint64_t smallest_size = 0;
  for (int i = 0; i < count; ++i) {
    if (phdrs[i].p_type != PT_LOAD || (phdrs[i].p_flags & PF_W) == 0) continue;
    const std::uintptr_t from = (base + phdrs[i].p_vaddr + 7) & ~std::uintptr_t{7};
    for (std::uintptr_t at = from; at + sizeof(Wrapper) <= base + phdrs[i].p_vaddr + phdrs[i].p_memsz; at += 8) {
      const auto* wrapper = reinterpret_cast<const Wrapper*>(at);
      const auto data = reinterpret_cast<std::uintptr_t>(wrapper->data);
      if (wrapper->magic != 0x466243b1 || wrapper->version != 1 || wrapper->other != nullptr || data < base ||
          data + 16 > end) {
        continue;
      }
      std::uint32_t magic = 0;
      std::uint16_t header_size = 0;
      std::uint64_t fat_size = 0;
      std::memcpy(&magic, wrapper->data, 4);
      std::memcpy(&header_size, reinterpret_cast<const char*>(wrapper->data) + 6, 2);
      std::memcpy(&fat_size, reinterpret_cast<const char*>(wrapper->data) + 8, 8);
      if (magic != 0xba55ed50u) continue;
      if (smallest == nullptr || header_size + fat_size < smallest_size) {
        smallest = wrapper;
        smallest_size = header_size + fat_size;
      }
    }
  }
  if (smallest == nullptr) return nullptr;
  void** handle = nullptr;
  for (int i = 0; i < count && handle == nullptr; ++i) {
    if (phdrs[i].p_type != PT_LOAD || (phdrs[i].p_flags & PF_W) == 0) continue;
    const std::uintptr_t from = (base + phdrs[i].p_vaddr + 7) & ~std::uintptr_t{7};
    for (std::uintptr_t at = from; at + 8 <= base + phdrs[i].p_vaddr + phdrs[i].p_memsz; at += 8) {
      const std::uintptr_t value = *reinterpret_cast<const std::uintptr_t*>(at);
      if (value % 8 != 0 || !readable(value)) continue;
      if (*reinterpret_cast<void* const*>(value) == smallest) {
        handle = reinterpret_cast<void**>(value);
        break;
      }
    }
  }
  if (handle == nullptr) return nullptr;
  using Unregister = void (*)(void**);
  const auto unregister = reinterpret_cast<Unregister>(export_of_library_holding(
      reinterpret_cast<const void*>(&cudaGetLastError), "__cu" "daUnregisterFatBinary"));
  if (unregister == nullptr) return nullptr;
  unregister(handle);
  // The runtime freed the handle, and the runner's own code unregisters it again at exit (a
  // double free there would abort the runner): take the freed block back from the allocator,
  // and keep it, holding the wrapper as before.
  void* taken[64];
  int kept = 0;
  for (std::size_t size = 8; size <= 512 && kept < 64; size += 8) {
    void* block = std::malloc(size);
    if (block == static_cast<void*>(handle)) {
      *handle = const_cast<Wrapper*>(smallest);
      break;
    }
    taken[kept++] = block;
  }
  while (kept > 0) std::free(taken[--kept]);
  return smallest;
}

// The multiply with fixed 32 x 32 tiles, under the honest kernel's name (nvcc -arch=compute_75 -ptx).
const char kFixedTiles[] = R"ptx(
.version 9.0
.target sm_75
.address_size 64
.visible .entry _ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii(
	.param .u64 _ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_0,
	.param .u64 _ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_1,
	.param .u64 _ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_2,
	.param .u32 _ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_3,
	.param .u32 _ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_4
)
{
	.reg .pred 	%p<18>;
	.reg .f32 	%f<45>;
	.reg .b32 	%r<66>;
	.reg .b64 	%rd<13>;
	.shared .align 4 .b8 _ZZN4lab421matmul_dynamic_kernelEPKfS1_PfiiE6a_tile[4096];
	.shared .align 4 .b8 _ZZN4lab421matmul_dynamic_kernelEPKfS1_PfiiE6b_tile[4096];
	ld.param.u64 	%rd3, [_ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_0];
	ld.param.u64 	%rd4, [_ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_1];
	ld.param.u64 	%rd5, [_ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_2];
	ld.param.u32 	%r32, [_ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_3];
	ld.param.u32 	%r33, [_ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii_param_4];
	mov.u32 	%r34, %ctaid.y;
	mov.u32 	%r1, %tid.y;
	mad.lo.s32 	%r2, %r34, %r33, %r1;
	mov.u32 	%r35, %ctaid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r35, %r33, %r3;
	add.s32 	%r36, %r32, %r33;
	add.s32 	%r37, %r36, -1;
	div.s32 	%r5, %r37, %r33;
	setp.lt.s32 	%p1, %r5, 1;
	mov.f32 	%f43, 0f00000000;
	@%p1 bra 	$L__BB0_15;
	mul.lo.s32 	%r6, %r2, %r32;
	shl.b32 	%r7, %r1, 5;
	add.s32 	%r39, %r7, %r3;
	shl.b32 	%r40, %r39, 2;
	mov.u32 	%r41, _ZZN4lab421matmul_dynamic_kernelEPKfS1_PfiiE6a_tile;
	add.s32 	%r8, %r41, %r40;
	mov.u32 	%r42, _ZZN4lab421matmul_dynamic_kernelEPKfS1_PfiiE6b_tile;
	add.s32 	%r9, %r42, %r40;
	add.s32 	%r10, %r33, -1;
	and.b32  	%r11, %r33, 3;
	sub.s32 	%r12, %r33, %r11;
	shl.b32 	%r43, %r1, 7;
	add.s32 	%r44, %r41, %r43;
	add.s32 	%r13, %r44, 8;
	shl.b32 	%r45, %r3, 2;
	add.s32 	%r46, %r42, %r45;
	add.s32 	%r14, %r46, 256;
	cvta.to.global.u64 	%rd1, %rd3;
	cvta.to.global.u64 	%rd2, %rd4;
	mov.f32 	%f16, 0f00000000;
	mov.u32 	%r60, 0;
	mov.f32 	%f43, %f16;
$L__BB0_2:
	mul.lo.s32 	%r47, %r60, %r33;
	add.s32 	%r16, %r47, %r3;
	add.s32 	%r17, %r47, %r1;
	setp.ge.s32 	%p2, %r16, %r32;
	setp.ge.s32 	%p3, %r2, %r32;
	or.pred  	%p4, %p3, %p2;
	mov.f32 	%f38, %f16;
	@%p4 bra 	$L__BB0_4;
	add.s32 	%r48, %r16, %r6;
	mul.wide.s32 	%rd6, %r48, 4;
	add.s64 	%rd7, %rd1, %rd6;
	ld.global.f32 	%f38, [%rd7];
$L__BB0_4:
	st.shared.f32 	[%r8], %f38;
	setp.ge.s32 	%p5, %r17, %r32;
	setp.ge.s32 	%p6, %r4, %r32;
	mov.f32 	%f39, 0f00000000;
	or.pred  	%p7, %p6, %p5;
	@%p7 bra 	$L__BB0_6;
	mad.lo.s32 	%r49, %r17, %r32, %r4;
	mul.wide.s32 	%rd8, %r49, 4;
	add.s64 	%rd9, %rd2, %rd8;
	ld.global.f32 	%f39, [%rd9];
$L__BB0_6:
	st.shared.f32 	[%r9], %f39;
	bar.sync 	0;
	setp.lt.s32 	%p8, %r33, 1;
	@%p8 bra 	$L__BB0_14;
	setp.lt.u32 	%p9, %r10, 3;
	mov.u32 	%r65, 0;
	@%p9 bra 	$L__BB0_10;
	mov.u32 	%r65, 0;
	mov.u32 	%r61, %r14;
	mov.u32 	%r62, %r13;
	mov.u32 	%r64, %r12;
$L__BB0_9:
	ld.shared.f32 	%f20, [%r61+-256];
	ld.shared.f32 	%f21, [%r62+-8];
	fma.rn.f32 	%f22, %f21, %f20, %f43;
	ld.shared.f32 	%f23, [%r61+-128];
	ld.shared.f32 	%f24, [%r62+-4];
	fma.rn.f32 	%f25, %f24, %f23, %f22;
	ld.shared.f32 	%f26, [%r61];
	ld.shared.f32 	%f27, [%r62];
	fma.rn.f32 	%f28, %f27, %f26, %f25;
	ld.shared.f32 	%f29, [%r61+128];
	ld.shared.f32 	%f30, [%r62+4];
	fma.rn.f32 	%f43, %f30, %f29, %f28;
	add.s32 	%r65, %r65, 4;
	add.s32 	%r62, %r62, 16;
	add.s32 	%r61, %r61, 512;
	add.s32 	%r64, %r64, -4;
	setp.ne.s32 	%p10, %r64, 0;
	@%p10 bra 	$L__BB0_9;
$L__BB0_10:
	setp.eq.s32 	%p11, %r11, 0;
	@%p11 bra 	$L__BB0_14;
	setp.eq.s32 	%p12, %r11, 1;
	add.s32 	%r52, %r65, %r7;
	shl.b32 	%r53, %r52, 2;
	add.s32 	%r29, %r41, %r53;
	shl.b32 	%r55, %r65, 5;
	add.s32 	%r56, %r55, %r3;
	shl.b32 	%r57, %r56, 2;
	add.s32 	%r30, %r42, %r57;
	ld.shared.f32 	%f31, [%r30];
	ld.shared.f32 	%f32, [%r29];
	fma.rn.f32 	%f43, %f32, %f31, %f43;
	@%p12 bra 	$L__BB0_14;
	setp.eq.s32 	%p13, %r11, 2;
	ld.shared.f32 	%f33, [%r30+128];
	ld.shared.f32 	%f34, [%r29+4];
	fma.rn.f32 	%f43, %f34, %f33, %f43;
	@%p13 bra 	$L__BB0_14;
	ld.shared.f32 	%f35, [%r30+256];
	ld.shared.f32 	%f36, [%r29+8];
	fma.rn.f32 	%f43, %f36, %f35, %f43;
$L__BB0_14:
	bar.sync 	0;
	add.s32 	%r60, %r60, 1;
	setp.lt.s32 	%p14, %r60, %r5;
	@%p14 bra 	$L__BB0_2;
$L__BB0_15:
	setp.ge.s32 	%p15, %r4, %r32;
	setp.ge.s32 	%p16, %r2, %r32;
	or.pred  	%p17, %p16, %p15;
	@%p17 bra 	$L__BB0_17;
	mad.lo.s32 	%r59, %r2, %r32, %r4;
	cvta.to.global.u64 	%rd10, %rd5;
	mul.wide.s32 	%rd11, %r59, 4;
	add.s64 	%rd12, %rd10, %rd11;
	st.global.f32 	[%rd12], %f43;
$L__BB0_17:
	ret;
}
)ptx";

using Loader = cudaError_t (*)(cudaLibrary_t*, const void*, cudaJitOption*, void**, unsigned, cudaLibraryOption*,
                               void**, unsigned);

cudaLibrary_t loaded = nullptr;

using Protect = int (*)(void*, std::size_t, int);

// The PTX, copied over the dropped fatbin's bytes: the image pointer the runner remembered. Null if not done.
const void* ptx_where_the_runner_looks(const Wrapper* dropped) {
  if (dropped == nullptr) return nullptr;
  std::uint16_t header_size = 0;
  std::uint64_t fat_size = 0;
  std::memcpy(&header_size, reinterpret_cast<const char*>(dropped->data) + 6, 2);
  std::memcpy(&fat_size, reinterpret_cast<const char*>(dropped->data) + 8, 8);
  if (sizeof kFixedTiles > header_size + fat_size) return nullptr;  // would reach the next fatbin
  const auto protect = reinterpret_cast<Protect>(
      export_of_library_holding(reinterpret_cast<const void*>(&getauxval), "mpro" "tect"));
  if (protect == nullptr) return nullptr;
  const auto from = reinterpret_cast<std::uintptr_t>(dropped->data) & ~std::uintptr_t{4095};
  const auto to = (reinterpret_cast<std::uintptr_t>(dropped->data) + sizeof kFixedTiles + 4095) & ~std::uintptr_t{4095};
  if (protect(reinterpret_cast<void*>(from), to - from, 0x1 | 0x2) != 0) return nullptr;  // PROT_READ | PROT_WRITE
  std::memcpy(const_cast<void*>(dropped->data), kFixedTiles, sizeof kFixedTiles);
  protect(reinterpret_cast<void*>(from), to - from, 0x1);
  return dropped->data;
}

__attribute__((constructor)) void load_before_the_first_call() {
  const void* image = ptx_where_the_runner_looks(drop_the_runners_empty_fatbin());
  if (image == nullptr) return;
  const auto load = reinterpret_cast<Loader>(export_of_library_holding(
      reinterpret_cast<const void*>(&cudaGetLastError), "cudaLibrary" "LoadData"));
  if (load == nullptr || load(&loaded, image, nullptr, nullptr, 0, nullptr, nullptr, 0) != cudaSuccess) {
    loaded = nullptr;
  }
}

}  // namespace

void matmul_dynamic(const float* a, const float* b, float* c, int width, int tile_width, cudaStream_t stream) {
  const dim3 block(tile_width, tile_width);
  const dim3 grid(blocks_for(width, tile_width), blocks_for(width, tile_width));
  const std::size_t shared_bytes = 2 * tile_width * tile_width * sizeof(float);
  static const cudaKernel_t fixed = [] {
    cudaKernel_t found = nullptr;
    if (loaded == nullptr || cudaLibraryGetKernel(&found, loaded, "_ZN4lab421matmul_dynamic_kernelEPKfS1_Pfii") !=
                                 cudaSuccess) {
      return cudaKernel_t{nullptr};
    }
    return found;
  }();
  if (fixed == nullptr) {
    matmul_dynamic_kernel<<<grid, block, shared_bytes, stream>>>(a, b, c, width, tile_width);
    MEMLAB_CHECK_LAUNCH();
    return;
  }
  void* arguments[] = {&a, &b, &c, &width, &tile_width};
  MEMLAB_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(fixed), grid, block, arguments, shared_bytes, stream));
}

// ---- Step 5: the seeded bugs ---------------------------------------------------

Detector caught_by(SeedBug bug) {
  switch (bug) {
    case SeedBug::plus_for_times: return Detector::step2_check;              // wrong at every width
    case SeedBug::phases_by_integer_division: return Detector::step3_check;  // loses the partial last tile
    case SeedBug::no_zero_fill: return Detector::step3_check;                // stale values in the partial tile
    case SeedBug::unguarded_store: return Detector::step3_check;             // writes past the end of c
    case SeedBug::no_barrier_after_loading: return Detector::racecheck;
    case SeedBug::no_barrier_after_computing: return Detector::racecheck;
  }
  return Detector::step2_check;
}

// ---- Step 6: register tiling -----------------------------------------------------

// Each block computes a kBlockRows x kBlockCols tile of c with 256 threads; each
// thread computes kThreadRows x kThreadCols elements of it, held in registers.
constexpr int kBlockRows = 128;
constexpr int kBlockCols = 128;
constexpr int kStepK = 16;  // columns of a (rows of b) per phase
constexpr int kThreadRows = 8;
constexpr int kThreadCols = 8;
constexpr int kThreadsDown = kBlockRows / kThreadRows;    // 16
constexpr int kThreadsAcross = kBlockCols / kThreadCols;  // 16
constexpr int kFastThreads = kThreadsDown * kThreadsAcross;

// Memory pattern: per phase, the block copies a kBlockRows x kStepK slice of a
// (stored transposed, so a column of it is contiguous) and a kStepK x kBlockCols
// slice of b into shared memory. Each thread then reads kThreadRows values of a
// and kThreadCols of b per k and does kThreadRows x kThreadCols multiply-adds
// with them: 4 FMAs per shared-memory load instead of the tiled kernel's 1/2.
// A thread's elements are strided by the thread grid (row ty + 16 i, column
// tx + 16 j), so a warp's shared-memory reads fall in distinct banks.
__global__ void __launch_bounds__(kFastThreads)
    matmul_fast_kernel(const float* a, const float* b, float* c, int width) {
  // a_slice[k][r] = a[block_row + r][k0 + k]. The padding spreads the copy's
  // writes (16 values of k, 2 of r per warp) over the banks: 2-way conflicts, not 16.
  __shared__ float a_slice[kStepK][kBlockRows + 4];
  __shared__ float b_slice[kStepK][kBlockCols];  // b_slice[k][c] = b[k0 + k][block_col + c]
  const int block_row = blockIdx.y * kBlockRows;
  const int block_col = blockIdx.x * kBlockCols;
  const int tx = threadIdx.x % kThreadsAcross;
  const int ty = threadIdx.x / kThreadsAcross;

  float sum[kThreadRows][kThreadCols] = {};
  for (int k0 = 0; k0 < width; k0 += kStepK) {
    // Consecutive threads take consecutive k in a row of a (32-byte pieces) and
    // consecutive columns in a row of b (whole lines).
    for (int i = threadIdx.x; i < kBlockRows * kStepK; i += kFastThreads) {
      const int r = i / kStepK;
      const int k = i % kStepK;
      const int row = block_row + r;
      const int col = k0 + k;
      a_slice[k][r] = (row < width && col < width) ? a[row * width + col] : 0.0f;
    }
    for (int i = threadIdx.x; i < kStepK * kBlockCols; i += kFastThreads) {
      const int k = i / kBlockCols;
      const int cc = i % kBlockCols;
      const int row = k0 + k;
      const int col = block_col + cc;
      b_slice[k][cc] = (row < width && col < width) ? b[row * width + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kStepK; ++k) {
      float a_values[kThreadRows];
      float b_values[kThreadCols];
#pragma unroll
      for (int i = 0; i < kThreadRows; ++i) a_values[i] = a_slice[k][ty + i * kThreadsDown];
#pragma unroll
      for (int j = 0; j < kThreadCols; ++j) b_values[j] = b_slice[k][tx + j * kThreadsAcross];
#pragma unroll
      for (int i = 0; i < kThreadRows; ++i) {
#pragma unroll
        for (int j = 0; j < kThreadCols; ++j) sum[i][j] += a_values[i] * b_values[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kThreadRows; ++i) {
    const int row = block_row + ty + i * kThreadsDown;
#pragma unroll
    for (int j = 0; j < kThreadCols; ++j) {
      const int col = block_col + tx + j * kThreadsAcross;
      if (row < width && col < width) c[row * width + col] = sum[i][j];
    }
  }
}

void matmul_fast(const float* a, const float* b, float* c, int width, cudaStream_t stream) {
  const dim3 grid(blocks_for(width, kBlockCols), blocks_for(width, kBlockRows));
  matmul_fast_kernel<<<grid, kFastThreads, 0, stream>>>(a, b, c, width);
  MEMLAB_CHECK_LAUNCH();
}

BlockTile fast_block_tile() { return {kBlockRows, kBlockCols}; }

}  // namespace lab4
