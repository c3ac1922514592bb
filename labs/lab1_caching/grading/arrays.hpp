/// @file arrays.hpp
/// @brief Lab 1's grader: the arrays every check shares, and vector_add run and checked on them.
///
/// a and b hold seeded random values the host can recompute element by element;
/// c is poisoned before each run, with a guard zone after it. check_vector_add()
/// checks every element; checked_vector_add() is a timed run that compare_speed()
/// verifies at places chosen after it.
#pragma once

#include "lab1_api.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/device_random.cuh>
#include <memlab/grading/grader.hpp>
#include <memlab/grading/speed.hpp>
#include <memlab/random.hpp>
#include <memlab/resources.cuh>
#include <memlab/verify.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace lab1::checks {

namespace grading = memlab::grading;

constexpr std::size_t kBytesPerElement = 3 * sizeof(float);  // a and b read, c written
constexpr int kLaunches = 5;                 // the OLCF caching exercise's five launches in a row
constexpr int kHoldMicroseconds = 1000;      // far longer than queueing five launches takes
constexpr int kLongHoldMicroseconds = 3000;  // step 2's other hold: a GPU timer does not see the difference
// Warm launches at least this much faster than the cold one count as "faster",
// at most kNoSpeedup as "not faster"; in between, the measurement does not
// decide (step 4 leaves that footprint ungraded; step 2 asks a timer for no
// gain unless the reference's shows clearly more). Measured speedups (10th to
// 90th percentile over rounds, H200): 1.27 to 1.69 from L2/8 to L2/2, 0.86 to
// 0.99 from 1x to 8x L2 (docs/measurements/lab1.md).
constexpr double kClearlyFaster = 1.15;
constexpr double kNoSpeedup = 1.05;

inline const lab1::Api& student() { return grading::student<lab1::Api>(); }
inline const lab1::Api& reference() { return grading::reference<lab1::Api>(); }

inline std::size_t elements_for(std::size_t footprint_bytes) { return footprint_bytes / kBytesPerElement; }

// The footprint of the speed check on this GPU (memlab::by_gpu::vector_add_timing_bytes).
std::size_t large_footprint();

// a, b and c on the GPU for up to `capacity` elements, with a guard zone after
// each; a and b hold seeded random values that the host can recompute.
class Arrays {
 public:
  Arrays(std::size_t capacity, std::uint64_t seed)
      : a_(capacity + memlab::kGuardElements),
        b_(capacity + memlab::kGuardElements),
        c_(capacity + memlab::kGuardElements),
        seed_a_(seed),
        seed_b_(seed + 1) {
    memlab::fill_random(a_.data(), a_.size(), seed_a_, -1.0, 1.0, grading::stream());
    memlab::fill_random(b_.data(), b_.size(), seed_b_, -1.0, 1.0, grading::stream());
    MEMLAB_CHECK(cudaStreamSynchronize(grading::stream()));
  }

  std::size_t capacity() const { return c_.size() - memlab::kGuardElements; }
  // New random a and b from @p seed (the next timed run's inputs).
  void refill(std::uint64_t seed) {
    seed_a_ = seed;
    seed_b_ = seed + 1;
    memlab::fill_random(a_.data(), a_.size(), seed_a_, -1.0, 1.0, grading::stream());
    memlab::fill_random(b_.data(), b_.size(), seed_b_, -1.0, 1.0, grading::stream());
  }
  const float* a() const { return a_.data(); }
  const float* b() const { return b_.data(); }
  float* c() { return c_.data(); }
  const memlab::DeviceBuffer<float>& c_buffer() const { return c_; }
  // Every byte of c, guard zone included, set to the poison pattern (NaN).
  void poison_c() { c_.fill_bytes(memlab::kPoisonByte, grading::stream()); }
  // What c[i] must be, computed on the host from the same random sequences.
  float expected(std::size_t i) const {
    return memlab::random_value<float>(seed_a_, i, -1.0, 1.0) +
           memlab::random_value<float>(seed_b_, i, -1.0, 1.0);
  }

 private:
  memlab::DeviceBuffer<float> a_, b_, c_;
  std::uint64_t seed_a_, seed_b_;
};

/// The arrays every check shares, reallocated when a check needs more elements.
Arrays& arrays(std::size_t elements);
/// Runs impl.vector_add on n elements and checks c[0..n) and the guard zone after
/// it. Returns what is wrong (empty if nothing) and sets the hint that fits.
std::string check_vector_add(const lab1::Api& impl, std::size_t n);
/// A timed run of vector_add on n elements that is checked (arrays.cpp).
grading::CheckedWork checked_vector_add(const lab1::Api& impl, Arrays& arr, std::size_t n);
/// lab1.cuh's promise past 2^31 elements, checked where the GPU has the memory:
/// what was checked, for the report; throws if the student's code is wrong there.
std::string beyond_int_range();

}  // namespace lab1::checks
