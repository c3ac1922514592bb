// Step 5: the tiled kernels of seed_bugs.cu, each with one mistake, which the
// grader runs through its own step 2 and step 3 checks.
#pragma once

#include "lab4.cuh"

#include <array>

namespace lab4 {

/// Every bug of SeedBug, in order, with what it does wrong in a few words.
struct SeedBugInfo {
  SeedBug bug;
  const char* name;
  const char* mistake;
};

inline constexpr std::array<SeedBugInfo, 6> kSeedBugs = {{
    {SeedBug::plus_for_times, "plus_for_times", "sum += a_tile[ty][k] + b_tile[k][tx]"},
    {SeedBug::phases_by_integer_division, "phases_by_integer_division", "phases = width / kTileWidth"},
    {SeedBug::no_zero_fill, "no_zero_fill", "out-of-range tile elements keep what was there"},
    {SeedBug::unguarded_store, "unguarded_store", "c[row * width + col] = sum, for every thread"},
    {SeedBug::no_barrier_after_loading, "no_barrier_after_loading", "no __syncthreads() before the products"},
    {SeedBug::no_barrier_after_computing, "no_barrier_after_computing", "no __syncthreads() after the products"},
}};

/// matmul_tiled with @p bug (same arguments as lab4::matmul_tiled).
void matmul_with_seed_bug(SeedBug bug, const float* a, const float* b, float* c, int width, cudaStream_t stream);

}  // namespace lab4
