// What `make lab5-sanitize` runs under compute-sanitizer racecheck: your GEMVs
// once each, on shapes that are not multiples of any block size.

#include "lab5_api.hpp"

#include <memlab/device_random.cuh>
#include <memlab/profiling.cuh>
#include <memlab/resources.cuh>

int main(int argc, char** argv) {
  return memlab::run_sanitize_program(argc, argv, "memlab_lab5_api", [](const void* table) {
    const auto& api = *static_cast<const lab5::Api*>(table);
    constexpr std::size_t kRows = 300;  // small: racecheck watches every shared-memory access
    constexpr std::size_t kCols = 301;
    memlab::Stream stream;
    memlab::DeviceBuffer<double> a(kRows * kCols), x(kCols), y(kRows);
    memlab::fill_random(a.data(), a.size(), 1, -1.0, 1.0, stream);
    memlab::fill_random(x.data(), x.size(), 2, -1.0, 1.0, stream);
    memlab::fill_random(y.data(), y.size(), 3, -1.0, 1.0, stream);
    for (const lab5::Gemv gemv : {api.gemv_shared_x, api.gemv_fast}) {
      gemv(kRows, kCols, 0.75, a.data(), x.data(), -0.5, y.data(), stream);
    }
    stream.synchronize();
  });
}
