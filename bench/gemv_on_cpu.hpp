/// @file gemv_on_cpu.hpp
/// @brief What bench_lab5_gemv compares the GPU with, and how it counts the
/// warps a grid puts on each SM. Plain C++, host-tested (tests/host/gemv_on_cpu_test.cpp).
#pragma once

#include <memlab/parallel.hpp>

#include <algorithm>
#include <cstddef>

namespace memlab::bench {

/// y = alpha A x + beta y in double on the CPU, A row-major: the Numba GEMV
/// notebook's yardstick (NumPy's `alpha * (A @ x) + beta * y`) written out.
/// Each core takes whole rows, so it streams A from memory in order; four
/// partial sums per row let the adds overlap instead of waiting on each other.
inline void gemv_on_cpu(std::size_t rows, std::size_t cols, double alpha, const double* a, const double* x,
                        double beta, double* y) {
  memlab::parallel_for(rows, [&](std::size_t r) {
    const double* line = a + r * cols;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    std::size_t c = 0;
    for (; c + 4 <= cols; c += 4) {
      s0 += line[c] * x[c];
      s1 += line[c + 1] * x[c + 1];
      s2 += line[c + 2] * x[c + 2];
      s3 += line[c + 3] * x[c + 3];
    }
    for (; c < cols; ++c) s0 += line[c] * x[c];
    y[r] = alpha * ((s0 + s1) + (s2 + s3)) + beta * y[r];
  });
}

/// The warps an SM holds on average while a grid of @p blocks blocks of
/// @p warps_per_block warps runs on @p sm_count SMs, when at most
/// @p blocks_per_sm blocks fit on one SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor):
/// the SM's limit if the grid fills the GPU, else the grid's share of it.
inline double warps_per_sm(std::size_t blocks, int warps_per_block, int blocks_per_sm, int sm_count) {
  if (sm_count <= 0) return 0.0;
  const double share = static_cast<double>(blocks) / sm_count;
  return warps_per_block * std::min(static_cast<double>(blocks_per_sm), share);
}

}  // namespace memlab::bench
