/// @file launch.cuh
/// @brief What a launch configuration needs to know about the GPU, for
/// students' files and the reference solutions alike (header-only).
#pragma once

#include "memlab/cuda_check.cuh"

#include <cuda_runtime.h>

namespace memlab {

/// Number of SMs of the current device, asked once per process: grid sizes are
/// chosen as multiples of it ("8 blocks per SM") so that every SM gets work.
/// Throws CudaError if the device cannot be queried.
inline int multiprocessor_count() {
  static const int count = [] {
    int device = 0;
    int sms = 0;
    MEMLAB_CHECK(cudaGetDevice(&device));
    MEMLAB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
  }();
  return count;
}

}  // namespace memlab
