/// @file shareable.hpp
/// @brief Device memory another process maps at full speed: the grader's
/// buffers, which the runners' lab code reads and writes.
///
/// Memory opened with cudaIpcOpenMemHandle is slower to stream through than the
/// owner's: on an H100, lab 1's vector_add over 1 GiB ran at 1841 GB/s on it
/// against 2751 GB/s on the runner's own cudaMalloc (docs/measurements/
/// trusted-grading.md). Memory made with the driver's cuMem* calls, exported as
/// a POSIX file descriptor and mapped by the runner, runs at 2748 GB/s. So the
/// grader makes every DeviceBuffer that way (install_shareable_memory), and a
/// runner maps the descriptors it is sent (map_shareable).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace memlab::grading::shareable {

/// Grader side: DeviceBuffer allocates shareable memory from now on. Call once,
/// before any buffer a runner is to see is allocated.
void install_shareable_memory();

/// One allocation made by the installed allocator.
struct Allocation {
  std::uint64_t id = 0;       ///< unique in this process, never reused
  std::size_t size = 0;       ///< bytes mapped (the request rounded up to the granularity)
  int descriptor = -1;        ///< POSIX file descriptor of the memory, owned by the allocator
  std::size_t offset = 0;     ///< of the pointer asked about, from the allocation's start
};

/// Grader side: the shareable allocation holding @p device_pointer, if any.
std::optional<Allocation> find(const void* device_pointer);

/// Grader side: true while the allocation @p id has not been freed.
bool alive(std::uint64_t id);

/// Runner side: maps the memory of @p descriptor (@p size bytes) into this
/// process, readable and writable by its GPU; returns its address. The
/// descriptor can be closed afterwards.
void* map(int descriptor, std::size_t size);

/// Runner side: unmaps what map() returned.
void unmap(void* base, std::size_t size);

}  // namespace memlab::grading::shareable
