// What `make lab4-sanitize` runs under compute-sanitizer racecheck: your
// shared-memory kernels once each, at widths that are not multiples of any tile.

#include "lab4_api.hpp"

#include <memlab/device_random.cuh>
#include <memlab/profiling.cuh>
#include <memlab/resources.cuh>

int main(int argc, char** argv) {
  return memlab::run_sanitize_program(argc, argv, "memlab_lab4_api", [](const void* table) {
    const auto& api = *static_cast<const lab4::Api*>(table);
    constexpr int kWidth = 40;  // small (racecheck watches every shared-memory access), no multiple of a tile
    const std::size_t count = kWidth * kWidth;
    memlab::Stream stream;
    memlab::DeviceBuffer<float> a(count), b(count), c(count);
    memlab::fill_random(a.data(), count, 1, -1.0, 1.0, stream);
    memlab::fill_random(b.data(), count, 2, -1.0, 1.0, stream);
    api.matmul_tiled(a.data(), b.data(), c.data(), kWidth, stream);
    for (int tile : {8, 16, 32}) api.matmul_dynamic(a.data(), b.data(), c.data(), kWidth, tile, stream);
    api.matmul_fast(a.data(), b.data(), c.data(), kWidth, stream);
    stream.synchronize();
  });
}
