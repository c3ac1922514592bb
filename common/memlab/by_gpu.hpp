/// @file by_gpu.hpp
/// @brief What the labs choose and expect from a GPU's facts (problem sizes,
/// the FP64 rate), as plain functions of those facts: the graders call them
/// with the GPU they run on, and a host test (tests/host/gpu_table_test.cpp)
/// with GPUs it does not have.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>

namespace memlab::by_gpu {

/// Lab 1's speed check, bytes of a, b and c together: at least 8x L2, so every
/// launch streams from DRAM whatever the previous one left, and at least 1 GiB,
/// so a launch takes long enough (0.35 ms on an H100) for the grader's clock to
/// be steady to a few percent; at most an eighth of the GPU's memory.
inline std::size_t vector_add_timing_bytes(std::size_t l2_bytes, std::size_t memory_bytes) {
  return std::min(std::max<std::size_t>(8 * l2_bytes, std::size_t{1} << 30), memory_bytes / 8);
}

/// Labs 2 and 3's square timing matrix, its side: at least 8x L2 of float and
/// at least 1 GiB (whole waves of warp-per-row blocks: on an H200 at 11264 x
/// 11264, 1.33 waves, float row sums lose 10% in the last, partial wave;
/// docs/measurements/lab2-3.md), at most 1/16 of the GPU's memory, so a double
/// matrix of the same shape fits too. A multiple of 256, so rows start on
/// 128-byte lines.
inline std::size_t sums_timing_side(std::size_t l2_bytes, std::size_t memory_bytes) {
  const double bytes =
      static_cast<double>(std::min(std::max<std::size_t>(8 * l2_bytes, std::size_t{1} << 30), memory_bytes / 16));
  return static_cast<std::size_t>(std::floor(std::sqrt(bytes / sizeof(float)) / 256) * 256);
}

/// Lab 5's square timing matrix, its side: the Numba CUDA notebook's N = 20000
/// (3.2 GB per copy of A) where both layouts fit in a quarter of the GPU's
/// memory, smaller (a multiple of 256) on smaller GPUs.
inline std::size_t gemv_timing_side(std::size_t memory_bytes) {
  const double fits = std::sqrt(static_cast<double>(memory_bytes) / 4 / 2 / sizeof(double));
  return static_cast<std::size_t>(std::min(20000.0, std::floor(fits / 256) * 256));
}

/// The side of the square matrices of the checks past 32-bit offsets (labs 2,
/// 3 and 5; grading::kBeyond32Bits): 65537 x 65537 is 2^32 + 131073 elements.
inline constexpr std::size_t kBeyond32BitsSide = 65537;
/// The rows of the tall matrices of the checks past 32 bits (labs 2, 3 and 5;
/// grading::kTall): 2^27 + 33 rows, so a warp per row numbered from a 32-bit
/// thread index (blockIdx.x * blockDim.x + threadIdx.x) wraps in the last 33,
/// and more rows than a grid's y dimension holds blocks (65535).
inline constexpr std::size_t kTallRows = (std::size_t{1} << 27) + 33;
/// The n past 2^31 elements of lab 1's vector_add check and lab 3's polynomial
/// check, not a multiple of any block size.
inline constexpr std::size_t kBeyond31Bits = (std::size_t{1} << 31) + 4099;
/// The n past 2^32 elements of lab 3's float polynomial check: an index made
/// of a product of 32-bit values wraps there, not at 2^31.
inline constexpr std::size_t kBeyond32BitsElements = (std::size_t{1} << 32) + 4099;

/// The bytes a check past 32-bit offsets allocates (a kBeyond32BitsSide square
/// matrix of @p element_bytes), and the eighth to spare that
/// grading::no_room_for() asks for besides.
inline std::size_t beyond_32_bits_bytes(std::size_t element_bytes) {
  const std::size_t bytes = kBeyond32BitsSide * kBeyond32BitsSide * element_bytes;
  return bytes + bytes / 8;
}
/// The same for lab 1's check past 2^31 elements: a, b and c of kBeyond31Bits floats.
inline std::size_t beyond_31_bits_vector_add_bytes() {
  const std::size_t bytes = 3 * kBeyond31Bits * sizeof(float);
  return bytes + bytes / 8;
}

/// FP32 operations per FP64 operation on compute capability @p major.@p minor,
/// from the CUDA C++ Programming Guide's arithmetic throughput table: 2 on the
/// chips with an FP64 unit for every two FP32 units (GP100, GV100, GA100,
/// GH100, GB100), 32 or 64 on the others, data-centre cards among them (T4 32;
/// A10, L4, L40S 64). Nothing for a capability the table does not list.
inline std::optional<int> fp32_per_fp64(int major, int minor) {
  switch (10 * major + minor) {
    case 60: case 70: case 80: case 90: case 100: return 2;
    case 61: case 62: case 72: case 75: return 32;
    case 86: case 87: case 89: case 120: case 121: return 64;
    default: return std::nullopt;
  }
}

}  // namespace memlab::by_gpu
