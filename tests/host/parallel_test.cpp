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
