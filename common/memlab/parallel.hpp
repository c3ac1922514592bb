/// @file parallel.hpp
/// @brief Spreading a host loop over the machine's cores: the graders compute
/// exact results for matrices of millions of elements, in long double.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <system_error>
#include <thread>
#include <vector>

namespace memlab {

/// Calls @p body(i) for every i < @p count, each i exactly once, on up to one
/// thread per core; returns when all calls have returned. Calls for different i
/// run at the same time, so body must only write what belongs to its i.
template <typename Body>
void parallel_for(std::size_t count, const Body& body) {
  const std::size_t threads =
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::max<std::size_t>(count, 1));
  const auto run_stripe = [&](std::size_t stripe) {
    for (std::size_t i = stripe; i < count; i += threads) body(i);
  };
  std::vector<std::thread> workers;
  try {
    for (std::size_t stripe = 1; stripe < threads; ++stripe) workers.emplace_back(run_stripe, stripe);
  } catch (const std::system_error&) {
    // No more threads (a pids limit, RLIMIT_NPROC, memory): the stripes without one run here.
  }
  for (std::size_t stripe = workers.size() + 1; stripe < threads; ++stripe) run_stripe(stripe);
  run_stripe(0);
  for (std::thread& worker : workers) worker.join();
}

/// A split of [0, count) into contiguous ranges, numbered in order (see parallel_ranges()).
struct Ranges {
  std::size_t count = 0;  ///< elements covered
  std::size_t size = 0;   ///< elements per range (the last may have fewer)
  /// How many ranges there are.
  std::size_t number() const { return size == 0 ? 0 : (count + size - 1) / size; }
  /// The first element of range @p r.
  std::size_t begin(std::size_t r) const { return r * size; }
  /// One past the last element of range @p r.
  std::size_t end(std::size_t r) const { return std::min(count, (r + 1) * size); }
};

/// How parallel_ranges() splits @p count elements: one range per core, each at least @p least long.
inline Ranges ranges_of(std::size_t count, std::size_t least = std::size_t{1} << 16) {
  const std::size_t cores = std::max<std::size_t>(std::thread::hardware_concurrency(), 1);
  const std::size_t size = std::max({(count + cores - 1) / cores, least, std::size_t{1}});
  return Ranges{count, size};
}

/// Calls @p body(r, begin, end) for every range r of @p ranges, at the same time on up to
/// one thread per core; returns when all calls have returned. A caller that keeps range r's
/// result in slot r sizes its slots by the same @p ranges and merges them in element order.
template <typename Body>
void parallel_ranges(const Ranges& ranges, const Body& body) {
  parallel_for(ranges.number(), [&](std::size_t r) { body(r, ranges.begin(r), ranges.end(r)); });
}

/// parallel_ranges() over ranges_of(@p count, @p least).
template <typename Body>
void parallel_ranges(std::size_t count, const Body& body, std::size_t least = std::size_t{1} << 16) {
  parallel_ranges(ranges_of(count, least), body);
}

}  // namespace memlab
