// Lab 4's operands, its CPU oracle and its checked timed runs (products.hpp).
#include "products.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/device_random.cuh>
#include <memlab/grading/cublas.hpp>
#include <memlab/parallel.hpp>
#include <memlab/random.hpp>
#include <memlab/report.hpp>
#include <memlab/resources.cuh>
#include <memlab/verify.hpp>

#include <map>
#include <memory>
#include <random>

namespace lab4::checks {

namespace grading = memlab::grading;
using memlab::format_text;

namespace {

// Up to this width the grader computes the exact product on the CPU; above it,
// the reference's tiled kernel is the yardstick (its own accuracy is checked
// against the exact product at the smaller widths).
constexpr int kLargestExactWidth = 1024;

// ---- Operands and the right answer --------------------------------------------

// Elements allocated after c: a kernel whose blocks overhang the matrix by up to
// 128 rows writes there, not into other allocations, and the check sees it.
std::size_t slack_elements(int width) { return std::size_t{128} * (width + 128) + memlab::kGuardElements; }

// a and b: seeded random values in [-1, 1]; c: poisoned before each run, with slack.
struct Operands {
  explicit Operands(int side)
      : width(side),
        count(static_cast<std::size_t>(side) * side),
        a(count),
        b(count),
        c(count + slack_elements(side)) {
    fill(grading::seed() + 1, grading::seed() + 2);
  }
  // a and b from these seeds (the timed runs give each run its own).
  void fill(std::uint64_t seed_a, std::uint64_t seed_b) {
    memlab::fill_random(a.data(), count, seed_a, -1.0, 1.0, grading::stream());
    memlab::fill_random(b.data(), count, seed_b, -1.0, 1.0, grading::stream());
  }
  int width;
  std::size_t count;
  memlab::DeviceBuffer<float> a, b, c;
  std::vector<float> expected;  // the right c, row-major, rounded to float once
  bool expected_is_exact = false;
};

// c = a x b computed on the CPU in double: exact to float's precision.
void compute_exact(Operands& m) {
  const std::vector<float> a = memlab::random_values<float>(m.count, grading::seed() + 1);
  const std::vector<float> b = memlab::random_values<float>(m.count, grading::seed() + 2);
  const auto w = static_cast<std::size_t>(m.width);
  std::vector<double> exact(m.count, 0.0);
  memlab::parallel_for(w, [&](std::size_t row) {
    double* out = &exact[row * w];
    for (std::size_t k = 0; k < w; ++k) {
      const double scale = a[row * w + k];
      const float* b_row = &b[k * w];
      for (std::size_t col = 0; col < w; ++col) out[col] += scale * b_row[col];
    }
  });
  m.expected.assign(exact.begin(), exact.end());
  m.expected_is_exact = true;
}

// c from the reference's tiled kernel: the yardstick above kLargestExactWidth.
void compute_with_reference(Operands& m) {
  reference().matmul_tiled(m.a.data(), m.b.data(), m.c.data(), m.width, grading::stream());
  m.expected = m.c.to_host(m.count, grading::stream());
  m.expected_is_exact = false;
}

Operands& operands(int width) {
  static std::map<int, std::unique_ptr<Operands>> cache;
  std::unique_ptr<Operands>& slot = cache[width];
  if (!slot) {
    slot = std::make_unique<Operands>(width);
    if (width <= kLargestExactWidth) {
      compute_exact(*slot);
    } else {
      compute_with_reference(*slot);
    }
  }
  return *slot;
}

// Each element of c is a sum of width products of values in [-1, 1] with mean
// zero: summation_tolerance's bound for float, twice over when the yardstick
// is itself a float result. A missing or doubled product is off by about 0.25.
memlab::Tolerance product_tolerance(const Operands& m) {
  memlab::Tolerance tolerance = memlab::summation_tolerance<float>(static_cast<std::size_t>(m.width), 1.0);
  if (!m.expected_is_exact) tolerance.absolute *= 2;
  return tolerance;
}

}  // namespace

std::string check_product(const Multiply& multiply, int width) {
  Operands& m = operands(width);
  m.fill(grading::seed() + 1, grading::seed() + 2);  // the operands m.expected is for (timed runs change them)
  m.c.fill_bytes(memlab::kPoisonByte, grading::stream());
  multiply(m.a.data(), m.b.data(), m.c.data(), width, grading::stream());
  MEMLAB_CHECK(cudaStreamSynchronize(grading::stream()));
  MEMLAB_CHECK(cudaGetLastError());
  const std::vector<float> all = m.c.to_host(m.c.size(), grading::stream());
  if (const auto past_end = memlab::first_overwritten(all, m.count)) {
    return format_text("width %d: wrote %zu elements past the end of c (threads outside the matrix must not write)",
                       width, *past_end + 1);
  }
  const std::vector<float> got(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(m.count));
  const memlab::Comparison result =
      memlab::compare(got, m.expected, product_tolerance(m), memlab::MatrixShape{m.count / width, std::size_t(width)});
  return result.ok() ? "" : format_text("width %d: ", width) + result.describe("c");
}

std::string check_widths(const Multiply& multiply, const std::vector<int>& widths) {
  for (int width : widths) {
    std::string problem = check_product(multiply, width);
    if (!problem.empty()) return problem;
  }
  return "";
}

memlab::Work work_of(const Multiply& multiply, int width) {
  Operands& m = operands(width);
  return [&m, multiply](cudaStream_t s) { multiply(m.a.data(), m.b.data(), m.c.data(), m.width, s); };
}

// A timed run of @p multiply that is checked: before it, new a and b from the
// run's own seeds and all of c and the slack after it poisoned with a new
// pattern; after it, the slack and 64 elements of c chosen after the run (the
// first and the last among them), each recomputed on the CPU in double. A run
// skipped, cached from earlier operands, or left unfinished fails.
grading::CheckedWork checked_work(const Multiply& multiply, int width) {
  struct Run {
    std::uint64_t seed_a = 0, seed_b = 0;
    std::uint32_t pattern = 0;
    std::mt19937_64 places{grading::unpredictable_seed()};
  };
  auto run = std::make_shared<Run>();
  Operands& m = operands(width);
  grading::CheckedWork checked;
  checked.prepare = [&m, run]() {
    run->seed_a = grading::unpredictable_seed();
    run->seed_b = run->seed_a + 1;
    m.fill(run->seed_a, run->seed_b);
    run->pattern = grading::poison(m.c.data(), m.c.bytes());
  };
  checked.work = work_of(multiply, width);
  checked.verify = [&m, run]() -> std::string {
    if (!grading::still_poisoned(m.c.data() + m.count, m.c.bytes() - m.count * sizeof(float), run->pattern)) {
      return format_text("width %d: wrote past the end of c", m.width);
    }
    const auto w = static_cast<std::size_t>(m.width);
    constexpr int kElements = 64;
    const std::vector<std::size_t> places = grading::sample_starts(m.count, 1, kElements, run->places);
    std::vector<float> got(places.size()), expected(places.size());
    for (std::size_t i = 0; i < places.size(); ++i) {
      MEMLAB_CHECK(cudaMemcpy(&got[i], m.c.data() + places[i], sizeof(float), cudaMemcpyDeviceToHost));
    }
    memlab::parallel_for(places.size(), [&](std::size_t i) {
      const std::size_t row = places[i] / w, col = places[i] % w;
      double sum = 0.0;
      for (std::size_t k = 0; k < w; ++k) {
        sum += static_cast<double>(memlab::random_value<float>(run->seed_a, row * w + k, -1.0, 1.0)) *
               memlab::random_value<float>(run->seed_b, k * w + col, -1.0, 1.0);
      }
      expected[i] = static_cast<float>(sum);
    });
    const memlab::Comparison result =
        memlab::compare(got, expected, memlab::summation_tolerance<float>(w, 1.0));
    if (result.ok()) return "";
    const std::size_t i = result.first.front().index;
    return format_text("width %d: c[%zu][%zu] = %g, expected %g", m.width, places[i] / w, places[i] % w, got[i],
                       expected[i]);
  };
  return checked;
}

// cuBLAS SGEMM's speed at @p width, measured once (full FP32: the handle's
// pedantic math mode, no TF32).
double cublas_milliseconds(int width) {
  static std::map<int, double> measured;
  auto found = measured.find(width);
  return found != measured.end() ? found->second : measured[width] = grading::median_milliseconds(work_of(&grading::matmul, width));
}


}  // namespace lab4::checks
