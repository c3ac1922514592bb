// Shareable device memory (shareable.hpp): cuMemCreate'd, exported as POSIX
// file descriptors. Driver calls are found at run time (driver_entry.hpp).
#include "memlab/grading/shareable.hpp"
#include "memlab/grading/driver_entry.hpp"
#include "memlab/grading/phases.hpp"

#include "memlab/cuda_check.cuh"
#include "memlab/resources.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

namespace memlab::grading::shareable {

namespace {

struct Driver {
  PFN_cuMemCreate_v10020 create = driver_function<PFN_cuMemCreate_v10020>("cuMemCreate");
  PFN_cuMemRelease_v10020 release = driver_function<PFN_cuMemRelease_v10020>("cuMemRelease");
  PFN_cuMemGetAllocationGranularity_v10020 granularity =
      driver_function<PFN_cuMemGetAllocationGranularity_v10020>("cuMemGetAllocationGranularity");
  PFN_cuMemAddressReserve_v10020 reserve = driver_function<PFN_cuMemAddressReserve_v10020>("cuMemAddressReserve");
  PFN_cuMemAddressFree_v10020 free_address = driver_function<PFN_cuMemAddressFree_v10020>("cuMemAddressFree");
  PFN_cuMemMap_v10020 map = driver_function<PFN_cuMemMap_v10020>("cuMemMap");
  PFN_cuMemUnmap_v10020 unmap = driver_function<PFN_cuMemUnmap_v10020>("cuMemUnmap");
  PFN_cuMemSetAccess_v10020 set_access = driver_function<PFN_cuMemSetAccess_v10020>("cuMemSetAccess");
  PFN_cuMemExportToShareableHandle_v10020 export_handle =
      driver_function<PFN_cuMemExportToShareableHandle_v10020>("cuMemExportToShareableHandle");
  PFN_cuMemImportFromShareableHandle_v10020 import_handle =
      driver_function<PFN_cuMemImportFromShareableHandle_v10020>("cuMemImportFromShareableHandle");
};

const Driver& the_driver() {
  static const Driver functions;
  return functions;
}

int current_device() {
  int device = 0;
  MEMLAB_CHECK(cudaGetDevice(&device));
  return device;
}

CUmemAllocationProp properties() {
  CUmemAllocationProp properties = {};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = current_device();
  properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return properties;
}

// Maps @p handle at a new address and lets this process's GPU read and write it.
CUdeviceptr map_handle(CUmemGenericAllocationHandle handle, std::size_t size, std::size_t alignment) {
  const Driver& cu = the_driver();
  CUdeviceptr address = 0;
  if (cu.reserve(&address, size, alignment, 0, 0) != CUDA_SUCCESS) return 0;
  CUmemAccessDesc access = {};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = current_device();
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (cu.map(address, size, 0, handle, 0) != CUDA_SUCCESS) {
    cu.free_address(address, size);
    return 0;
  }
  if (cu.set_access(address, size, &access, 1) != CUDA_SUCCESS) {
    cu.unmap(address, size);
    cu.free_address(address, size);
    return 0;
  }
  return address;
}

struct Made {
  std::uint64_t id;
  std::size_t size;
  int descriptor;
};
std::mutex guard;
std::map<CUdeviceptr, Made> made;  // by base address
std::set<std::uint64_t> live;
std::uint64_t next_id = 1;

cudaError_t allocate(void** pointer, std::size_t bytes) {
  const Phase phase("buffer_allocate");
  const Driver& cu = the_driver();
  const CUmemAllocationProp wanted = properties();
  std::size_t granularity = 0;
  if (cu.granularity(&granularity, &wanted, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) != CUDA_SUCCESS) {
    return cudaErrorMemoryAllocation;
  }
  const std::size_t size = (bytes + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  if (cu.create(&handle, size, &wanted, 0) != CUDA_SUCCESS) return cudaErrorMemoryAllocation;
  int descriptor = -1;
  const CUresult exported =
      cu.export_handle(&descriptor, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  const CUdeviceptr address = exported == CUDA_SUCCESS ? map_handle(handle, size, granularity) : 0;
  cu.release(handle);  // the mapping and the descriptor keep the memory
  if (address == 0) {
    if (descriptor >= 0) ::close(descriptor);
    return cudaErrorMemoryAllocation;
  }
  std::lock_guard<std::mutex> lock(guard);
  made.emplace(address, Made{next_id, size, descriptor});
  live.insert(next_id++);
  *pointer = reinterpret_cast<void*>(address);
  return cudaSuccess;
}

void release(void* pointer) noexcept {
  if (pointer == nullptr) return;
  const Phase phase("buffer_release");
  std::lock_guard<std::mutex> lock(guard);
  const auto it = made.find(reinterpret_cast<CUdeviceptr>(pointer));
  if (it == made.end()) return;
  cudaDeviceSynchronize();  // cudaFree waits for the GPU; an unmap does not
  const Driver& cu = the_driver();
  cu.unmap(it->first, it->second.size);
  cu.free_address(it->first, it->second.size);
  ::close(it->second.descriptor);
  live.erase(it->second.id);
  made.erase(it);
}

}  // namespace

void install_shareable_memory() {
  the_driver();  // fails here, not at the first buffer, if the driver lacks the calls
  device_allocator() = DeviceAllocator{allocate, release, "cuMemCreate"};
}

std::optional<Allocation> find(const void* device_pointer) {
  const auto address = reinterpret_cast<CUdeviceptr>(device_pointer);
  std::lock_guard<std::mutex> lock(guard);
  auto it = made.upper_bound(address);
  if (it == made.begin()) return std::nullopt;
  --it;
  if (address >= it->first + it->second.size) return std::nullopt;
  return Allocation{it->second.id, it->second.size, it->second.descriptor, address - it->first};
}

bool alive(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(guard);
  return live.count(id) != 0;
}

void* map(int descriptor, std::size_t size) {
  const Driver& cu = the_driver();
  CUmemGenericAllocationHandle handle = 0;
  const CUresult imported = cu.import_handle(&handle, reinterpret_cast<void*>(static_cast<std::intptr_t>(descriptor)),
                                             CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  if (imported != CUDA_SUCCESS) throw std::runtime_error("grading: cannot import a buffer the grader sent");
  const CUmemAllocationProp wanted = properties();
  std::size_t granularity = 0;
  cu.granularity(&granularity, &wanted, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  const CUdeviceptr address = map_handle(handle, size, granularity);
  cu.release(handle);
  if (address == 0) throw std::runtime_error("grading: cannot map a buffer the grader sent");
  return reinterpret_cast<void*>(address);
}

void unmap(void* base, std::size_t size) {
  const Driver& cu = the_driver();
  cudaDeviceSynchronize();
  cu.unmap(reinterpret_cast<CUdeviceptr>(base), size);
  cu.free_address(reinterpret_cast<CUdeviceptr>(base), size);
}

}  // namespace memlab::grading::shareable
