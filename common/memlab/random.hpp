/// @file random.hpp
/// @brief Counter-based random numbers: value i of a seeded sequence is a pure
/// function of (seed, i), the same on host and device, with any compiler.
///
/// Inputs for large arrays are generated on the GPU (fill_random() in
/// device_random.cuh) and the host recomputes exactly the values it needs for
/// the reference result, without copying the inputs back.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define MEMLAB_HOST_DEVICE __host__ __device__
#else
#define MEMLAB_HOST_DEVICE
#endif

namespace memlab {

/// SplitMix64's output function applied to seed + (index + 1) * golden ratio:
/// well-mixed 64-bit values, fixed by this definition.
MEMLAB_HOST_DEVICE inline std::uint64_t random_bits(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Value @p index of the sequence @p seed, uniform between @p low and @p high.
template <typename T>
MEMLAB_HOST_DEVICE inline T random_value(std::uint64_t seed, std::uint64_t index, double low,
                                         double high) {
  const double unit = static_cast<double>(random_bits(seed, index) >> 11) * 0x1.0p-53;  // [0, 1)
#if defined(__CUDA_ARCH__)
  // Explicit rounding stops nvcc from fusing the multiply and add into an FMA,
  // which would round differently from the host and break bit-equality.
  return static_cast<T>(__dadd_rn(low, __dmul_rn(unit, high - low)));
#else
  return static_cast<T>(low + unit * (high - low));
#endif
}

}  // namespace memlab
