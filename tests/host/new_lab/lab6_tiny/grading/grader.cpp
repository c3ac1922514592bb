// The throwaway lab's grader: one check.
#include "lab6_api.hpp"

#include <memlab/grading/catch2.hpp>
#include <memlab/grading/grader.hpp>
#include <memlab/resources.cuh>

#include <vector>

namespace grading = memlab::grading;

TEST_CASE("scale doubles every element", "[step1][correct]") {
  const std::size_t n = 1000;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  memlab::DeviceBuffer<float> device_x(n), device_y(n);
  device_x.upload(x, grading::stream());
  grading::student<lab6::Api>().scale(device_x.data(), device_y.data(), n, grading::stream());
  const std::vector<float> y = device_y.to_host(n, grading::stream());
  for (std::size_t i = 0; i < n; ++i) {
    if (y[i] != 2.0f * x[i]) FAIL("y[" << i << "] is " << y[i] << ", not " << 2.0f * x[i]);
  }
  grading::measured("1000 elements");
}
