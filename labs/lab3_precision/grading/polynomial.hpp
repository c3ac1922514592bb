/// @file polynomial.hpp
/// @brief Lab 3's grader, step 3: x and y on the GPU, the exact polynomial on the
/// CPU, and the polynomial kernels run and checked, in float and in double.
#pragma once

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/device_random.cuh>
#include <memlab/grading/grader.hpp>
#include <memlab/grading/matrix_sums.hpp>
#include <memlab/grading/phases.hpp>
#include <memlab/grading/speed.hpp>
#include <memlab/random.hpp>
#include <memlab/report.hpp>
#include <memlab/resources.cuh>
#include <memlab/verify.hpp>

#include <algorithm>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab3::checks {

namespace grading = memlab::grading;
using memlab::format_text;

// Step 3: as many elements as it takes for the polynomial to run a fraction of
// a millisecond in float on a large GPU: launch overhead stays out of the ratio.
constexpr std::size_t kPolynomialElements = std::size_t{1} << 24;

// The timed runs' x: close enough to 1 that x^512 is still 0.077, so every
// one of Horner's steps changes the result beyond the tolerance and none can
// be skipped (with x in [-1, 1], a warp whose |x| are small could stop early:
// red team 7 did 77% of the work and passed).
constexpr double kTimedLowestX = 0.995;

// x: seeded random values in [low, high] ([-1, 1] for the correctness checks);
// y: poisoned before every run; both with a guard zone.
template <typename T>
struct PolynomialData {
  memlab::DeviceBuffer<T> x;
  memlab::DeviceBuffer<T> y;
  std::uint64_t seed = 0;
  double low = -1.0, high = 1.0;
  explicit PolynomialData(std::size_t capacity = kPolynomialElements)
      : x(capacity + memlab::kGuardElements), y(capacity + memlab::kGuardElements) {
    refill(grading::seed() + 7, -1.0, 1.0);
  }
  std::size_t capacity() const { return x.size() - memlab::kGuardElements; }
  // New random x in [new_low, new_high] from @p new_seed.
  void refill(std::uint64_t new_seed, double new_low, double new_high) {
    seed = new_seed;
    low = new_low;
    high = new_high;
    memlab::fill_random(x.data(), x.size(), seed, low, high, grading::stream());
  }
  T input(std::size_t i) const { return memlab::random_value<T>(seed, i, low, high); }
};

template <typename T>
PolynomialData<T>& polynomial_data() {
  static PolynomialData<T> data;
  return data;
}

template <typename T>
double horner_exact(T x) {
  long double value = 1;
  for (int k = 0; k < lab3::kPolynomialDegree; ++k) value = value * x + 1;
  return static_cast<double>(value);
}

// Each Horner step rounds once (by at most u of its value) and later steps
// multiply that error by |x| <= 1; summed over the steps, the error stays
// below kPolynomialDegree * u relative. Twice that passes every correct
// kernel, while a double kernel computing in float is off by 10^9 times more.
template <typename T>
memlab::Tolerance polynomial_tolerance() {
  const double bound = 2.0 * lab3::kPolynomialDegree * std::numeric_limits<T>::epsilon() / 2;
  return {bound, bound};
}

template <typename T>
using PolynomialFunction = void (*)(const T*, T*, std::size_t, cudaStream_t);

// Runs `polynomial` on the first n inputs and checks the result: every element
// when n is small, every 257th at the full size (the host's long double Horner
// is slow), and that every element was written and nothing past n.
template <typename T>
std::string check_polynomial(PolynomialFunction<T> polynomial, std::size_t n) {
  PolynomialData<T>& data = polynomial_data<T>();
  if (data.low != -1.0) data.refill(grading::seed() + 7, -1.0, 1.0);  // after a timed run: back to [-1, 1]
  data.y.fill_bytes(memlab::kPoisonByte, grading::stream());
  polynomial(data.x.data(), data.y.data(), n, grading::stream());
  MEMLAB_CHECK(cudaStreamSynchronize(grading::stream()));
  MEMLAB_CHECK(cudaGetLastError());
  const std::vector<T> all = data.y.to_host(n + memlab::kGuardElements, grading::stream());
  if (const auto past_end = memlab::first_overwritten(all, n)) {
    grading::hint("Threads with i >= n must not write.");
    return format_text("n = %zu: wrote y[%zu], past the end", n, n + *past_end);
  }
  const std::size_t step = n > 100000 ? 257 : 1;
  std::vector<T> got;
  std::vector<T> expected;
  std::size_t unwritten = 0;
  for (std::size_t i = 0; i < n; ++i) {
    unwritten += memlab::is_poison(all[i]);
    if (i % step != 0) continue;
    got.push_back(all[i]);
    expected.push_back(static_cast<T>(horner_exact(data.input(i))));
  }
  if (unwritten > 0) {
    grading::hint("Launch enough threads for all n elements (or loop with a grid stride).");
    return format_text("n = %zu: %zu elements never written", n, unwritten);
  }
  const memlab::Comparison result = memlab::compare(got, expected, polynomial_tolerance<T>());
  if (result.ok()) return "";
  grading::hint(sizeof(T) == sizeof(double)
                    ? "Is every variable of the double version a double? A float anywhere in the chain "
                      "(the running value, the input, a float literal) rounds to float's 24 bits."
                    : "Start from 1 and apply value = value * x + 1 exactly kPolynomialDegree times.");
  return format_text("n = %zu%s: ", n, step > 1 ? " (every 257th element checked)" : "") + result.describe("y");
}

// A timed run of `polynomial` on all of @p data's inputs that is
// checked: new random x and y poisoned with a new pattern before it; after it,
// the guard zone past y, every element of y written (the poison counted on the
// GPU), and 64 runs of 32 elements of y at places chosen after the run (the
// first and last among them) compared with the host's Horner within
// polynomial_tolerance<T>(), as check_polynomial() does (2048 long double
// Horner evaluations, about 4 ms on one core).
template <typename T>
grading::CheckedWork checked_polynomial(PolynomialFunction<T> polynomial,
                                        PolynomialData<T>& data = polynomial_data<T>()) {
  struct State {
    std::uint32_t pattern = 0;
    std::mt19937_64 places{grading::unpredictable_seed()};
  };
  static constexpr std::size_t kChunk = 32;
  static constexpr int kChunks = 64;
  const std::size_t n = data.capacity();
  auto state = std::make_shared<State>();
  grading::CheckedWork run;
  run.prepare = [&data, state]() {
    data.refill(grading::unpredictable_seed(), kTimedLowestX, 1.0);
    state->pattern = grading::poison(data.y.data(), data.y.bytes());
  };
  run.work = [polynomial, &data, n](cudaStream_t s) { polynomial(data.x.data(), data.y.data(), n, s); };
  run.verify = [&data, state, n]() -> std::string {
    if (!grading::still_poisoned(data.y.data() + n, memlab::kGuardElements * sizeof(T), state->pattern)) {
      return format_text("n = %zu: wrote past y[%zu], the end of y", n, n - 1);
    }
    // All of y, on the GPU: one element never written hides among the samples (red team 32).
    if (const std::size_t unwritten = memlab::count_filled(data.y.data(), n, sizeof(T), state->pattern,
                                                           grading::stream())) {
      grading::hint("Launch enough threads for all n elements (or loop with a grid stride).");
      return format_text("n = %zu: %zu elements of y never written", n, unwritten);
    }
    std::vector<std::size_t> sampled;
    std::vector<T> got, expected;
    std::vector<T> chunk(kChunk);
    for (std::size_t start : grading::sample_starts(n, kChunk, kChunks, state->places)) {
      const std::size_t count = std::min(kChunk, n - start);
      MEMLAB_CHECK(cudaMemcpy(chunk.data(), data.y.data() + start, count * sizeof(T), cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < count; ++i) {
        sampled.push_back(start + i);
        got.push_back(chunk[i]);
        expected.push_back(static_cast<T>(horner_exact(data.input(start + i))));
      }
    }
    const std::string wrong =
        grading::wrong_sample("y", sampled, got, expected, polynomial_tolerance<T>(), state->pattern);
    return wrong.empty() ? "" : format_text("n = %zu: ", n) + wrong;
  };
  return run;
}

// lab3.cuh's sizes are std::size_t: the polynomial where 32-bit indexes wrap, past 2^32 elements
// (an int index wraps at 2^31, a std::size_t made of a product of 32-bit values at 2^32 threads:
// red team 32 one element per thread, red team 33 one double per thread, in float two) where the
// GPU has the memory for x and y (34.4 GB in float; 68.7 GB in double, else past 2^31 in 34.4 GB).
// Checked as a timed run is (checked_polynomial()): every element written, and the last elements
// among those sampled; freed on return, for the timed checks. What was checked, for the report
// ("to 4294971395", or why not); throws what was wrong, with a hint set (red team 30: an int
// grid-stride index scored 100).
template <typename T>
std::string check_polynomial_huge(PolynomialFunction<T> polynomial) {
  const grading::Phase phase("polynomial_huge");
  const auto bytes_for = [](std::size_t n) { return 2 * (n + memlab::kGuardElements) * sizeof(T); };
  std::size_t n = memlab::by_gpu::kBeyond32BitsElements;
  // has_room_for() ends the student's runner first where it holds the room (red team 34).
  if (sizeof(T) == sizeof(double) && !grading::has_room_for(bytes_for(n))) n = memlab::by_gpu::kBeyond31Bits;
  const char* past = n > memlab::by_gpu::kBeyond31Bits ? "2^32" : "2^31";
  const std::string no_room = grading::no_room_for(format_text("n = %zu (past %s)", n, past), bytes_for(n));
  if (!no_room.empty()) return no_room;
  PolynomialData<T> huge(n);
  const grading::CheckedWork run = checked_polynomial(polynomial, huge);
  run.prepare();
  run.work(grading::stream());
  const std::string problem = run.verify();
  if (!problem.empty()) {
    grading::hint("Past 2^31 elements an int index wraps around, and past 2^32 threads a product of 32-bit values "
                  "does: compute i in std::size_t (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x, "
                  "and the stride too).");
    throw std::runtime_error(format_text("past %s elements, ", past) + problem);
  }
  return format_text("to %zu", n);
}

}  // namespace lab3::checks
