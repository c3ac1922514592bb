/// @file lab6.cuh
/// @brief A throwaway lab (tests/host/add_a_lab.py): doubling a vector.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

/// The throwaway lab's functions.
namespace lab6 {

/// Writes y[i] = 2 x[i] for every i < n, on @p stream.
void scale(const float* x, float* y, std::size_t n, cudaStream_t stream);

}  // namespace lab6
