/// @file resources.cuh
/// @brief Owners for CUDA resources: device and pinned buffers, events, streams.
///
/// Each class frees what it owns in its destructor, so a check that throws
/// halfway through leaks nothing, and each is move-only, so nothing is freed
/// twice. Copies between host and device check their sizes: a copy that would
/// read or write past a buffer throws std::length_error instead.
#pragma once

#include "memlab/cuda_check.cuh"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace memlab {

namespace detail {
inline void require_fits(std::size_t count, std::size_t capacity, const char* what) {
  if (count > capacity) {
    throw std::length_error(std::string(what) + ": " + std::to_string(count) +
                            " elements do not fit in a buffer of " + std::to_string(capacity));
  }
}
}  // namespace detail

/// An array of @p T in device (global) memory, allocated with cudaMalloc.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;

  /// Allocates @p count elements (uninitialised). A count of zero allocates nothing.
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count == 0) return;
    const cudaError_t code = cudaMalloc(&data_, count * sizeof(T));
    if (code != cudaSuccess) {
      data_ = nullptr;
      throw CudaError(code, "cudaMalloc(" + std::to_string(count * sizeof(T)) + " bytes)",
                      __FILE__, __LINE__);
    }
  }

  /// Takes over the memory of @p other, which is left empty.
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  /// Frees this one's memory and takes over that of @p other.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }  // no throw from a destructor; cudaFree(nullptr) is fine

  /// Device pointer to the first element (nullptr when empty).
  T* data() noexcept { return data_; }
  /// @copydoc data()
  const T* data() const noexcept { return data_; }
  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// Size in bytes.
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  /// Copies @p count elements from host memory into the start of this buffer.
  void upload(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
    detail::require_fits(count, count_, "DeviceBuffer::upload");
    MEMLAB_CHECK(cudaMemcpyAsync(data_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
    MEMLAB_CHECK(cudaStreamSynchronize(stream));
  }
  /// Copies all of @p host into the start of this buffer.
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    upload(host.data(), host.size(), stream);
  }

  /// Copies the first @p count elements of this buffer into host memory.
  void download(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
    detail::require_fits(count, count_, "DeviceBuffer::download");
    MEMLAB_CHECK(cudaMemcpyAsync(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    MEMLAB_CHECK(cudaStreamSynchronize(stream));
  }
  /// Returns the first @p count elements (all of them by default) as a host vector.
  std::vector<T> to_host(std::size_t count, cudaStream_t stream = nullptr) const {
    std::vector<T> host(count);
    download(host.data(), count, stream);
    return host;
  }
  /// @copydoc to_host(std::size_t, cudaStream_t) const
  std::vector<T> to_host() const { return to_host(count_); }

  /// Sets every byte of the buffer to @p byte (cudaMemsetAsync semantics).
  void fill_bytes(unsigned char byte, cudaStream_t stream = nullptr) {
    MEMLAB_CHECK(cudaMemsetAsync(data_, byte, bytes(), stream));
  }

  /// Exchanges the contents of two buffers.
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// An array of @p T in page-locked host memory (cudaMallocHost), which the GPU
/// can copy from and to asynchronously and at full link speed.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  /// Allocates @p count elements (uninitialised).
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count == 0) return;
    const cudaError_t code = cudaMallocHost(&data_, count * sizeof(T));
    if (code != cudaSuccess) {
      data_ = nullptr;
      throw CudaError(code, "cudaMallocHost(" + std::to_string(count * sizeof(T)) + " bytes)",
                      __FILE__, __LINE__);
    }
  }
  /// Takes over the memory of @p other, which is left empty.
  PinnedBuffer(PinnedBuffer&& other) noexcept { swap(other); }
  /// Frees this one's memory and takes over that of @p other.
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    PinnedBuffer(std::move(other)).swap(*this);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { cudaFreeHost(data_); }

  /// Host pointer to the first element.
  T* data() noexcept { return data_; }
  /// @copydoc data()
  const T* data() const noexcept { return data_; }
  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// Element @p i (unchecked, like std::vector::operator[]).
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  /// @copydoc operator[]
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  /// Iterator to the first element.
  T* begin() noexcept { return data_; }
  /// Iterator past the last element.
  T* end() noexcept { return data_ + count_; }

  /// Exchanges the contents of two buffers.
  void swap(PinnedBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// A CUDA event: a marker in a stream whose completion time the GPU records.
class Event {
 public:
  Event() { MEMLAB_CHECK(cudaEventCreate(&event_)); }
  /// Takes over the event of @p other, which is left empty.
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  /// Frees this one's event and takes over that of @p other.
  Event& operator=(Event&& other) noexcept {
    std::swap(event_, other.event_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }

  /// The raw handle, for cudaEventRecord and friends.
  cudaEvent_t get() const noexcept { return event_; }
  /// Lets an Event be passed wherever a cudaEvent_t is expected.
  operator cudaEvent_t() const noexcept { return event_; }  // NOLINT(google-explicit-constructor)

  /// Enqueues the event on @p stream.
  void record(cudaStream_t stream = nullptr) { MEMLAB_CHECK(cudaEventRecord(event_, stream)); }
  /// Blocks the host until the GPU has passed this event.
  void synchronize() const { MEMLAB_CHECK(cudaEventSynchronize(event_)); }

  /// Milliseconds between two recorded events; waits for @p stop first.
  static float elapsed_ms(const Event& start, const Event& stop) {
    stop.synchronize();
    float ms = 0.0f;
    MEMLAB_CHECK(cudaEventElapsedTime(&ms, start.event_, stop.event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

/// A CUDA stream that does not synchronise with the legacy default stream.
class Stream {
 public:
  Stream() { MEMLAB_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  /// Takes over the stream of @p other, which is left empty.
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  /// Frees this one's stream and takes over that of @p other.
  Stream& operator=(Stream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  /// The raw handle, for kernel launches and async copies.
  cudaStream_t get() const noexcept { return stream_; }
  /// Lets a Stream be passed wherever a cudaStream_t is expected.
  operator cudaStream_t() const noexcept { return stream_; }  // NOLINT(google-explicit-constructor)
  /// Blocks the host until all work queued on the stream has finished.
  void synchronize() const { MEMLAB_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace memlab
