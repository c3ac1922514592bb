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

/// How DeviceBuffer allocates device memory: cudaMalloc and cudaFree, unless a
/// program installs another way (the graders install memory their runner
/// processes can map: memlab/grading/shareable.hpp).
struct DeviceAllocator {
  cudaError_t (*allocate)(void** pointer, std::size_t bytes);  ///< allocates @p bytes at @p pointer
  void (*release)(void* pointer) noexcept;                     ///< frees what allocate() returned (nullptr is fine)
  const char* call;                                            ///< the allocating call, for error messages
};

/// The process's DeviceAllocator, to read or replace (before any DeviceBuffer is made).
inline DeviceAllocator& device_allocator() {
  static DeviceAllocator allocator{[](void** pointer, std::size_t bytes) { return cudaMalloc(pointer, bytes); },
                                   [](void* pointer) noexcept { cudaFree(pointer); }, "cudaMalloc"};
  return allocator;
}

/// Device memory, through device_allocator().
struct DeviceMemory {
  /// Allocates @p bytes at @p pointer.
  static cudaError_t allocate(void** pointer, std::size_t bytes) { return device_allocator().allocate(pointer, bytes); }
  /// Frees what allocate() returned (nullptr is fine).
  static void release(void* pointer) noexcept { device_allocator().release(pointer); }
  /// The allocating call, for error messages.
  static const char* call() { return device_allocator().call; }
};

/// Page-locked host memory: cudaMallocHost and cudaFreeHost. The GPU copies
/// from and to it asynchronously and at the full speed of the link.
struct PinnedMemory {
  /// Allocates @p bytes at @p pointer.
  static cudaError_t allocate(void** pointer, std::size_t bytes) { return cudaMallocHost(pointer, bytes); }
  /// Frees what allocate() returned (nullptr is fine).
  static void release(void* pointer) noexcept { cudaFreeHost(pointer); }
  /// The allocating call, for error messages.
  static const char* call() { return "cudaMallocHost"; }
};

/// An array of @p T in @p Memory that frees itself: the ownership that
/// DeviceBuffer and PinnedBuffer share. Move-only.
template <typename T, typename Memory>
class OwnedArray {
 public:
  OwnedArray() = default;

  /// Allocates @p count elements (uninitialised). A count of zero allocates nothing.
  explicit OwnedArray(std::size_t count) : count_(count) {
    if (count == 0) return;
    void* pointer = nullptr;
    const cudaError_t code = Memory::allocate(&pointer, count * sizeof(T));
    if (code != cudaSuccess) {
      throw CudaError(code, std::string(Memory::call()) + "(" + std::to_string(count * sizeof(T)) + " bytes)",
                      __FILE__, __LINE__);
    }
    data_ = static_cast<T*>(pointer);
  }
  /// Takes over the memory of @p other, which is left empty.
  OwnedArray(OwnedArray&& other) noexcept { swap(other); }
  /// Frees this one's memory and takes over that of @p other.
  OwnedArray& operator=(OwnedArray&& other) noexcept {
    OwnedArray(std::move(other)).swap(*this);
    return *this;
  }
  OwnedArray(const OwnedArray&) = delete;
  OwnedArray& operator=(const OwnedArray&) = delete;
  ~OwnedArray() { Memory::release(data_); }  // never throws: a destructor may run during unwinding

  /// Pointer to the first element (nullptr when empty).
  T* data() noexcept { return data_; }
  /// @copydoc data()
  const T* data() const noexcept { return data_; }
  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// Size in bytes.
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  /// Exchanges the contents of two arrays.
  void swap(OwnedArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// An array of @p T in device (global) memory, with size-checked copies.
template <typename T>
class DeviceBuffer : public OwnedArray<T, DeviceMemory> {
 public:
  using OwnedArray<T, DeviceMemory>::OwnedArray;
  using OwnedArray<T, DeviceMemory>::data;
  using OwnedArray<T, DeviceMemory>::size;
  using OwnedArray<T, DeviceMemory>::bytes;

  /// Copies @p count elements from host memory into the start of this buffer.
  void upload(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
    detail::require_fits(count, size(), "DeviceBuffer::upload");
    MEMLAB_CHECK(cudaMemcpyAsync(data(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
    MEMLAB_CHECK(cudaStreamSynchronize(stream));
  }
  /// Copies all of @p host into the start of this buffer.
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    upload(host.data(), host.size(), stream);
  }

  /// Copies the first @p count elements of this buffer into host memory.
  void download(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
    detail::require_fits(count, size(), "DeviceBuffer::download");
    MEMLAB_CHECK(cudaMemcpyAsync(host, data(), count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    MEMLAB_CHECK(cudaStreamSynchronize(stream));
  }
  /// Returns the first @p count elements as a host vector.
  std::vector<T> to_host(std::size_t count, cudaStream_t stream = nullptr) const {
    std::vector<T> host(count);
    download(host.data(), count, stream);
    return host;
  }
  /// Returns all elements as a host vector.
  std::vector<T> to_host() const { return to_host(size()); }

  /// Sets every byte of the buffer to @p byte (cudaMemsetAsync semantics).
  void fill_bytes(unsigned char byte, cudaStream_t stream = nullptr) {
    MEMLAB_CHECK(cudaMemsetAsync(data(), byte, bytes(), stream));
  }
};

/// An array of @p T in page-locked host memory (see PinnedMemory).
template <typename T>
class PinnedBuffer : public OwnedArray<T, PinnedMemory> {
 public:
  using OwnedArray<T, PinnedMemory>::OwnedArray;
  using OwnedArray<T, PinnedMemory>::data;
  using OwnedArray<T, PinnedMemory>::size;

  /// Element @p i (unchecked, like std::vector::operator[]).
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  /// @copydoc operator[]
  const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  /// Iterator to the first element.
  T* begin() noexcept { return data(); }
  /// Iterator past the last element.
  T* end() noexcept { return data() + size(); }
};

/// A CUDA handle destroyed with its owner (move-only): what Event and Stream share.
template <typename Handle, cudaError_t (*Destroy)(Handle)>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  /// Takes over the handle of @p other, which is left empty.
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  /// Exchanges handles with @p other, which destroys this one's in time.
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  ~UniqueHandle() {
    if (handle_ != nullptr) Destroy(handle_);
  }

  /// The raw handle, for the CUDA runtime's own calls.
  Handle get() const noexcept { return handle_; }
  /// Lets the owner be passed wherever the raw handle is expected.
  operator Handle() const noexcept { return handle_; }  // NOLINT(google-explicit-constructor)

 protected:
  Handle handle_ = nullptr;  ///< the owned handle (nullptr when empty)
};

/// A CUDA event: a marker in a stream whose completion time the GPU records.
class Event : public UniqueHandle<cudaEvent_t, cudaEventDestroy> {
 public:
  /// Creates an event that records time.
  Event() { MEMLAB_CHECK(cudaEventCreate(&handle_)); }

  /// Enqueues the event on @p stream.
  void record(cudaStream_t stream = nullptr) { MEMLAB_CHECK(cudaEventRecord(handle_, stream)); }
  /// Blocks the host until the GPU has passed this event.
  void synchronize() const { MEMLAB_CHECK(cudaEventSynchronize(handle_)); }
  /// Whether the GPU has passed this event, without waiting.
  bool done() const {
    const cudaError_t status = cudaEventQuery(handle_);
    if (status == cudaErrorNotReady) return false;
    MEMLAB_CHECK(status);
    return true;
  }

  /// Milliseconds between two recorded events; waits for @p stop first.
  static float elapsed_ms(const Event& start, const Event& stop) {
    stop.synchronize();
    float ms = 0.0f;
    MEMLAB_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
  }
};

/// A CUDA stream that does not synchronise with the legacy default stream.
class Stream : public UniqueHandle<cudaStream_t, cudaStreamDestroy> {
 public:
  /// Creates the stream.
  Stream() { MEMLAB_CHECK(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking)); }
  /// Blocks the host until all work queued on the stream has finished.
  void synchronize() const { MEMLAB_CHECK(cudaStreamSynchronize(handle_)); }
};

}  // namespace memlab
