#include "memlab/device_random.cuh"

#include "memlab/cuda_check.cuh"
#include "memlab/random.hpp"

#include <algorithm>
#include <stdexcept>

namespace memlab {

namespace {

// Memory pattern: grid-stride, each thread writes consecutive elements of its warp's range.
template <typename T>
__global__ void fill_random_kernel(T* data, std::size_t count, std::uint64_t seed, double low,
                                   double high) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    data[i] = random_value<T>(seed, i, low, high);
  }
}

}  // namespace

template <typename T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, double low, double high,
                 cudaStream_t stream) {
  if (!(low < high)) throw std::invalid_argument("fill_random: need low < high");
  if (count == 0) return;
  constexpr int kThreads = 256;
  const std::size_t blocks = std::min<std::size_t>((count + kThreads - 1) / kThreads, 65536);
  fill_random_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(data, count, seed, low,
                                                                             high);
  MEMLAB_CHECK_LAUNCH();
}

template void fill_random<float>(float*, std::size_t, std::uint64_t, double, double, cudaStream_t);
template void fill_random<double>(double*, std::size_t, std::uint64_t, double, double, cudaStream_t);

namespace {
__global__ void fill_words_kernel(std::uint32_t* data, std::size_t count, std::uint32_t pattern) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    data[i] = pattern;
  }
}
}  // namespace

void fill_words(void* data, std::size_t count, std::uint32_t pattern, cudaStream_t stream) {
  if (count == 0) return;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((count + 255) / 256, 4096));
  fill_words_kernel<<<blocks, 256, 0, stream>>>(static_cast<std::uint32_t*>(data), count, pattern);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace memlab
