/// @file device_facts.cuh
/// @brief What the labs need to know about the GPU: its sizes from the driver,
/// and its ceilings measured by running kernels.
///
/// The labs pick problem sizes from these facts (footprints relative to L2,
/// tiles that fit in shared memory), and report speeds as a share of the
/// measured copy bandwidth: a ceiling this card reaches, unlike the datasheet's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <optional>
#include <string>

namespace memlab {

/// Sizes and limits of one GPU, as the driver reports them.
struct DeviceFacts {
  int device = 0;                         ///< device ordinal
  std::string name;                       ///< e.g. "NVIDIA H200"
  int major = 0;                          ///< compute capability, major
  int minor = 0;                          ///< compute capability, minor
  int sm_count = 0;                       ///< streaming multiprocessors
  int warp_size = 0;                      ///< threads per warp
  int max_threads_per_block = 0;          ///< largest block
  int max_threads_per_sm = 0;             ///< resident threads per SM
  std::size_t global_memory_bytes = 0;    ///< device memory
  std::size_t l2_bytes = 0;               ///< L2 cache
  std::size_t shared_per_block = 0;       ///< shared memory a block gets without opting in
  std::size_t shared_per_block_optin = 0; ///< most a block can opt in to (cudaFuncSetAttribute)
  std::size_t shared_per_sm = 0;          ///< shared memory per SM
  double theoretical_gbps = 0.0;          ///< 2 x memory clock x bus width; 0 if not reported
  int driver_version = 0;                 ///< e.g. 13000 for CUDA 13.0
  int runtime_version = 0;                ///< CUDA runtime the program was built with

  /// "9.0" style compute capability.
  std::string compute_capability() const;
  /// One line for reports: "NVIDIA H200, sm_90, 132 SMs, L2 60.0 MB, 139.8 GB".
  std::string summary() const;
};

/// Why no GPU can be used here (no device, no driver, driver too old), or
/// nothing if one can. Never throws: it is the first thing a grader asks.
std::optional<std::string> why_no_gpu();

/// The state of the GPU context between two checks.
struct GpuHealth {
  std::string lost_context;     ///< the sticky error that ended the context ("" while it works)
  std::size_t free_bytes = 0;   ///< device memory free now
  std::size_t total_bytes = 0;  ///< device memory in all
};

/// Waits for the device, clears an ordinary pending error (so it cannot fail
/// the next check), and tells whether the context still works and how much
/// memory is free. A sticky error (an illegal address, a trap) ends the
/// context for good: every later CUDA call in the process returns it. Never throws.
GpuHealth probe_gpu_health();

/// Facts about @p device (the current device by default). Throws CudaError.
DeviceFacts query_device(int device = -1);

/// Ceilings measured by running kernels on the current device.
struct MeasuredCeilings {
  double copy_gbps = 0.0;           ///< grid-stride copy of a large buffer, bytes read + written
  double read_gbps = 0.0;           ///< grid-stride read of the same buffer, nothing written
  double memcpy_gbps = 0.0;         ///< cudaMemcpyAsync device to device, bytes read + written
  std::size_t copy_bytes = 0;       ///< size of each of the copy's two buffers
  double launch_overhead_us = 0.0;  ///< event-timed empty kernel: the floor under any launch
  double fp32_gflops = 0.0;         ///< float fused multiply-adds in registers, 2 operations each: the compute ceiling

  /// The memory ceiling the labs report against: the best of the three ways of
  /// streaming DRAM above. No single one is the best on every GPU (a read-only
  /// stream beats a copy on the H100: no turnarounds between reads and
  /// writes), and a ceiling a fair kernel can beat would read as "over 100%".
  double peak_gbps() const;
  /// Which of the three peak_gbps() is: "a read-only kernel", say.
  const char* peak_source() const;
};

/// Measures the ceilings (takes well under a second). Throws CudaError.
MeasuredCeilings measure_ceilings(const DeviceFacts& facts, cudaStream_t stream);

/// The FP64 ceiling, measured as MeasuredCeilings::fp32_gflops is but in double:
/// a half of FP32 on GP100, GV100, GA100 and GH100, a thirty-second or a sixty-fourth on the other chips.
/// Apart from measure_ceilings() because only the performance report needs it,
/// and every grader measures the ceilings at start. Throws CudaError.
double measure_fp64_gflops(const DeviceFacts& facts, cudaStream_t stream);

/// MeasuredCeilings::fp32_gflops measured again, alone (for a grader's check
/// that must not rely on the clocks of the grader's first second). Throws CudaError.
double measure_fp32_gflops(const DeviceFacts& facts, cudaStream_t stream);

/// A byte count for people: "12.6 MB", "805 MB", "1.07 GB" (decimal units, as bandwidths use).
std::string format_bytes(double bytes);

}  // namespace memlab
