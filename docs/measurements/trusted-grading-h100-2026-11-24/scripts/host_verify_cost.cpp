// Session 13, on the build machine (one core used): what lab 1 step 1 host work cost before the change:
// computing 89,478,485 expected values and comparing them (printed: "expected 0.694 s, copy 0.032, compare 0.204 s ok=1").
#include "memlab/random.hpp"
#include "memlab/verify.hpp"
#include <chrono>
#include <cstdio>
#include <vector>
int main() {
  const std::size_t n = 89478485;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<float> expected(n), got(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = memlab::random_value<float>(1, i, -1.0, 1.0) + memlab::random_value<float>(2, i, -1.0, 1.0);
  auto t1 = std::chrono::steady_clock::now();
  got = expected;
  auto t2 = std::chrono::steady_clock::now();
  auto r = memlab::compare(got, expected, memlab::default_tolerance<float>());
  auto t3 = std::chrono::steady_clock::now();
  std::printf("expected %.3f s, copy %.3f, compare %.3f s ok=%d\n", std::chrono::duration<double>(t1-t0).count(),
    std::chrono::duration<double>(t2-t1).count(), std::chrono::duration<double>(t3-t2).count(), (int)r.ok());
}
