#include "memlab/grading/catch2.hpp"
#include "memlab/parallel.hpp"

#include <atomic>
#include <vector>

TEST_CASE("parallel_for calls the body once for every index, none twice", "[parallel]") {
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{10007}}) {
    std::vector<std::atomic<int>> calls(count);
    memlab::parallel_for(count, [&](std::size_t i) { calls[i].fetch_add(1); });
    for (std::size_t i = 0; i < count; ++i) REQUIRE(calls[i].load() == 1);
  }
}

TEST_CASE("parallel_ranges covers every element once, in contiguous ranges numbered in order", "[parallel]") {
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{1000003}}) {
    const memlab::Ranges ranges = memlab::ranges_of(count, 10);
    std::vector<std::atomic<int>> calls(count);
    std::vector<std::size_t> begins(ranges.number()), ends(ranges.number());
    memlab::parallel_ranges(ranges, [&](std::size_t r, std::size_t begin, std::size_t end) {
      begins[r] = begin;
      ends[r] = end;
      for (std::size_t i = begin; i < end; ++i) calls[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < count; ++i) REQUIRE(calls[i].load() == 1);
    for (std::size_t r = 0; r < ranges.number(); ++r) {
      CHECK(begins[r] == (r == 0 ? 0 : ends[r - 1]));
      if (r + 1 < ranges.number()) CHECK(ends[r] - begins[r] >= 10);  // only the last may be shorter
    }
    if (count > 0) CHECK(ends.back() == count);
  }
}
