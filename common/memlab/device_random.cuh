/// @file device_random.cuh
/// @brief Filling device arrays with seeded random values or a poison, and
/// counting the poison left, on the GPU.
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

/// How many of the @p count elements of @p element_bytes (4 or 8) at @p data
/// still hold @p pattern in every 32-bit word (fill_words()), counted on
/// @p stream; waits for it. Throws std::invalid_argument for another size.
std::size_t count_filled(const void* data, std::size_t count, std::size_t element_bytes, std::uint32_t pattern,
                         cudaStream_t stream);

}  // namespace memlab
