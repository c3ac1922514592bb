/// @file cuda_check.cuh
/// @brief Turning CUDA error codes into exceptions that say what failed and where.
///
/// Every CUDA runtime call returns a `cudaError_t`; ignoring it hides the first
/// failure and blames a later, innocent call. `MEMLAB_CHECK(call)` throws a
/// memlab::CudaError naming the call as written, its file and line, and the
/// error, for example:
///
///     cudaMalloc(&d_a, bytes) failed with cudaErrorMemoryAllocation (out of memory) at vector_add.cu:42
///
/// Helpers throw rather than exit, so a grader can report the failure as a
/// failed check and carry on with the next one.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

/// What every lab shares: CUDA error checks, resource owners, timing, device
/// facts, verification, statistics and reports. Header-only where a student's
/// file includes it (cuda_check.cuh, resources.cuh, launch.cuh); the rest is
/// in the memlab::host and memlab::cuda libraries.
namespace memlab {

/// A failed CUDA runtime call, with the call's text and where it was made.
class CudaError : public std::runtime_error {
 public:
  /// @param code  the error the call returned
  /// @param call  the call as written in the source
  /// @param file  source file of the call
  /// @param line  source line of the call
  CudaError(cudaError_t code, const std::string& call, const std::string& file, int line)
      : std::runtime_error(describe(code, call, file, line)), code_(code) {}

  /// The error code the call returned.
  cudaError_t code() const noexcept { return code_; }

  /// The message CudaError carries: "<call> failed with <name> (<text>) at <file>:<line>".
  static std::string describe(cudaError_t code, const std::string& call, const std::string& file,
                              int line) {
    return call + " failed with " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
           ") at " + base_name(file) + ":" + std::to_string(line);
  }

 private:
  // Full build paths make messages long and differ between machines; the file name is enough.
  static std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  }

  cudaError_t code_;
};

/// Throws CudaError unless @p code is cudaSuccess. Use through MEMLAB_CHECK.
inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw CudaError(code, call, file, line);
}

/// After a kernel launch: throws if the launch itself failed (bad configuration,
/// too much shared memory). With @p synchronize, also waits for the kernel and
/// throws if it failed while running (illegal address, trap). Use through
/// MEMLAB_CHECK_LAUNCH or MEMLAB_CHECK_LAUNCH_SYNC.
inline void check_launch(bool synchronize, const char* file, int line) {
  check_cuda(cudaGetLastError(), "kernel launch", file, line);
  if (synchronize) check_cuda(cudaDeviceSynchronize(), "kernel execution", file, line);
}

}  // namespace memlab

/// Checks a CUDA runtime call: `MEMLAB_CHECK(cudaMalloc(&p, bytes));`
#define MEMLAB_CHECK(call) ::memlab::check_cuda((call), #call, __FILE__, __LINE__)

/// Checks that the kernel launched just before this line was accepted.
#define MEMLAB_CHECK_LAUNCH() ::memlab::check_launch(false, __FILE__, __LINE__)

/// Checks the last launch and waits for it, so errors inside the kernel show here.
#define MEMLAB_CHECK_LAUNCH_SYNC() ::memlab::check_launch(true, __FILE__, __LINE__)
