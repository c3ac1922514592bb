// bench/gemv_on_cpu.hpp: the CPU GEMV that bench_lab5_gemv times against the
// GPU, and its count of the warps a grid puts on each SM.
#include "gemv_on_cpu.hpp"

#include "memlab/grading/catch2.hpp"

#include <cmath>
#include <cstddef>
#include <vector>

using memlab::bench::gemv_on_cpu;
using memlab::bench::warps_per_sm;
using memlab::catch2::Approx;

TEST_CASE("the CPU GEMV matches a plain loop for 1, 3, 4, 5 and 1001 columns") {
  for (std::size_t cols : {1u, 3u, 4u, 5u, 1001u}) {
    const std::size_t rows = 37;
    std::vector<double> a(rows * cols), x(cols), y(rows), expected(rows);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37 * static_cast<double>(i));  // not constant: a transposed index shows
    for (std::size_t c = 0; c < cols; ++c) x[c] = std::cos(0.11 * static_cast<double>(c));
    for (std::size_t r = 0; r < rows; ++r) y[r] = expected[r] = 0.5 + static_cast<double>(r);
    for (std::size_t r = 0; r < rows; ++r) {
      double sum = 0.0;
      for (std::size_t c = 0; c < cols; ++c) sum += a[r * cols + c] * x[c];
      expected[r] = 0.75 * sum - 0.5 * expected[r];
    }
    gemv_on_cpu(rows, cols, 0.75, a.data(), x.data(), -0.5, y.data());
    for (std::size_t r = 0; r < rows; ++r) {
      INFO("cols " << cols << ", row " << r);
      CHECK(std::abs(y[r] - expected[r]) <= 1e-12 * (1.0 + std::abs(expected[r])));
    }
  }
}

TEST_CASE("a grid smaller than one wave spreads its warps over the SMs, a larger one fills them") {
  // Lab 5's one thread per row, 20000 rows, on 132 SMs: 157 blocks of 4 warps or
  // 625 blocks of 1 warp, both about 4.7 warps per SM, far below the SM's limit.
  CHECK(warps_per_sm(157, 4, 16, 132) == Approx(4.0 * 157 / 132));
  CHECK(warps_per_sm(625, 1, 32, 132) == Approx(625.0 / 132));
  // A warp per row, 20000 rows in blocks of one warp: at most 32 blocks per SM.
  CHECK(warps_per_sm(20000, 1, 32, 132) == 32.0);
  CHECK(warps_per_sm(2500, 8, 8, 132) == 64.0);
  CHECK(warps_per_sm(10, 1, 32, 0) == 0.0);
}
