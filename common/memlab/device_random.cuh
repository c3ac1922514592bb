/// @file device_random.cuh
/// @brief Filling device arrays with seeded random values, on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace memlab {

/// Writes values 0..@p count-1 of the random sequence @p seed (random.hpp),
/// uniform between @p low and @p high, to @p data; enqueued on @p stream.
/// The host gets the same values from random_values() or random_value().
/// Throws std::invalid_argument unless low < high; CudaError if the launch fails.
template <typename T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, double low, double high,
                 cudaStream_t stream);

/// Sets each of @p count 32-bit words at @p data to @p pattern, on @p stream.
void fill_words(void* data, std::size_t count, std::uint32_t pattern, cudaStream_t stream);

}  // namespace memlab
