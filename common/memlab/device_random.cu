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

namespace {
// Each thread counts what it finds and adds it once: a correct output adds nothing.
template <typename Word>
__global__ void count_filled_kernel(const Word* data, std::size_t count, Word pattern,
                                    unsigned long long* found) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    mine += data[i] == pattern;
  }
  if (mine != 0) atomicAdd(found, mine);
}
}  // namespace

std::size_t count_filled(const void* data, std::size_t count, std::size_t element_bytes, std::uint32_t pattern,
                         cudaStream_t stream) {
  if (element_bytes != 4 && element_bytes != 8) throw std::invalid_argument("count_filled: elements of 4 or 8 bytes");
  if (count == 0) return 0;
  unsigned long long* found = nullptr;
  MEMLAB_CHECK(cudaMallocAsync(&found, sizeof(*found), stream));
  MEMLAB_CHECK(cudaMemsetAsync(found, 0, sizeof(*found), stream));
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((count + 255) / 256, 4096));
  if (element_bytes == 4) {
    count_filled_kernel<<<blocks, 256, 0, stream>>>(static_cast<const std::uint32_t*>(data), count, pattern, found);
  } else {
    const std::uint64_t both = (std::uint64_t{pattern} << 32) | pattern;
    count_filled_kernel<<<blocks, 256, 0, stream>>>(static_cast<const std::uint64_t*>(data), count, both, found);
  }
  MEMLAB_CHECK_LAUNCH();
  unsigned long long result = 0;
  MEMLAB_CHECK(cudaMemcpyAsync(&result, found, sizeof(result), cudaMemcpyDeviceToHost, stream));
  MEMLAB_CHECK(cudaFreeAsync(found, stream));
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  return static_cast<std::size_t>(result);
}

}  // namespace memlab
