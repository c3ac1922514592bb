// The runner's guard on the GPU code a build registers: see registered_code.hpp.
#include "memlab/grading/registered_code.hpp"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace memlab::grading {

namespace {

// What nvcc's generated code hands the runtime (its __fatBinC_Wrapper_t), and
// the header every fatbin starts with (the size of the whole follows from it).
struct FatbinWrapper {
  std::int32_t magic;  // 0x466243b1
  std::int32_t version;
  const void* data;    // the fatbin
  void* filename_or_fatbins;
};
constexpr std::int32_t kWrapperMagic = 0x466243b1;
struct FatbinHeader {
  std::uint32_t magic;  // 0xba55ed50
  std::uint16_t version;
  std::uint16_t header_size;
  std::uint64_t fat_size;  // bytes after the header
};
constexpr std::uint32_t kFatbinMagic = 0xba55ed50u;
// No lab build comes near this; a larger "size" is a broken or forged header.
constexpr std::uint64_t kLargestFatbin = std::uint64_t{1} << 30;

std::vector<std::string> allowed;  // the whole fatbins that may be registered (none: no guard)
bool closed = false;  // the build is loaded: it registers nothing more
int registrations = 0;  // every call of __cudaRegisterFatBinary, let through or not, less __cudaUnregisterFatBinary's

// One registration let through: the runtime's handle, the private wrapper it
// was given, and whether the handle held that wrapper when it came back (the
// runtime's layout this guard can then check: cudart 13 keeps it at [0]).
struct Registered {
  void** handle;
  const FatbinWrapper* wrapper;
  const void* fatbin;
  bool handle_holds_wrapper;
};
std::vector<Registered> registered_so_far;

// The size of the fatbin at @p data by its header, or 0 when it has none.
std::uint64_t fatbin_size(const void* data) {
  FatbinHeader header;
  std::memcpy(&header, data, sizeof header);
  if (header.magic != kFatbinMagic || header.header_size < sizeof header || header.fat_size > kLargestFatbin) return 0;
  return header.header_size + header.fat_size;
}

// Every wrapper handed to the runtime, guarded or not, with its fatbin's address and a copy of
// its bytes when registered (registered_image()). The build's threads may register while a
// module load asks.
struct Image {
  const FatbinWrapper* wrapper;
  const void* fatbin;
  std::string bytes;  // "" when the wrapper held no fatbin with a header
};
std::mutex images_guard;
std::vector<Image> images;

void remember_image(const FatbinWrapper* wrapper) {
  const std::uint64_t size = fatbin_size(wrapper->data);
  const std::lock_guard<std::mutex> lock(images_guard);
  images.push_back({wrapper, wrapper->data, std::string(static_cast<const char*>(wrapper->data), size)});
}

[[noreturn]] void refuse(const std::string& why) {
  std::fprintf(stderr,
               "runner: the build registers GPU code that nvcc did not compile from the lab's file (%s); code "
               "placed or changed by hand in a build is not graded\n",
               why.c_str());
  std::fflush(stderr);
  std::_Exit(2);
}

// A copy of @p wrapper whose fatbin is a read-only copy of @p fatbin, kept for the life of the process.
FatbinWrapper* private_copy(const FatbinWrapper& wrapper, const std::string& fatbin) {
  const long page = ::sysconf(_SC_PAGESIZE);
  const std::size_t length = (fatbin.size() + static_cast<std::size_t>(page) - 1) / page * page;
  void* bytes = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (bytes == MAP_FAILED) refuse("no memory for a copy of it");
  std::memcpy(bytes, fatbin.data(), fatbin.size());
  ::mprotect(bytes, length, PROT_READ);
  auto* copy = new FatbinWrapper(wrapper);  // the runtime may keep and write its wrapper
  copy->data = bytes;
  return copy;
}

}  // namespace

void allow_only(const std::string& fatbins) {
  std::vector<std::string> found;
  for (std::size_t at = 0; at + sizeof(FatbinHeader) <= fatbins.size();) {
    const std::uint64_t size = fatbin_size(fatbins.data() + at);
    if (size == 0 || size > fatbins.size() - at) throw std::invalid_argument("the allowed GPU code is not whole fatbins");
    found.push_back(fatbins.substr(at, size));
    at += size;
  }
  if (found.empty()) throw std::invalid_argument("no allowed GPU code was given");
  allowed = std::move(found);
}

void close_registrations() {
  if (allowed.empty()) return;
  closed = true;
  // Between registration and the runtime's first look at what was registered
  // (eager loading, when the runner makes its context, just after this), the
  // build's constructors could have pointed a handle (its address is a
  // variable of every file's host code) at other bytes (red team 17). No
  // module is loaded yet, so the handle still holds what the runtime put there.
  for (const Registered& one : registered_so_far) {
    if (one.handle_holds_wrapper && one.handle[0] != static_cast<const void*>(one.wrapper)) {
      refuse("a registered fatbin's handle was changed after registration");
    }
  }
  check_registrations();
}

int fatbins_registered() { return registrations; }

bool registered_image(const void* image) {
  const std::lock_guard<std::mutex> lock(images_guard);
  // The address alone is not enough: a build can write its own code over a registered fatbin's
  // bytes, the runner's own included (red team 25), or point a wrapper at other bytes.
  return image != nullptr && std::any_of(images.begin(), images.end(), [image](const Image& one) {
           return (image == one.wrapper || image == one.fatbin) && !one.bytes.empty() &&
                  one.wrapper->data == one.fatbin && fatbin_size(one.fatbin) == one.bytes.size() &&
                  std::memcmp(one.fatbin, one.bytes.data(), one.bytes.size()) == 0;
         });
}

void check_registrations() {
  // The wrappers are the runner's own: only the build could change them.
  for (const Registered& one : registered_so_far) {
    if (one.wrapper->magic != kWrapperMagic || one.wrapper->data != one.fatbin) {
      refuse("a registered fatbin's wrapper was changed after registration");
    }
  }
}

}  // namespace memlab::grading

// The build's registration calls resolve here, ahead of libcudart's (the
// runner exports this one symbol: cmake/Labs.cmake); so do the runner's own,
// made before any check is set up.
extern "C" __attribute__((visibility("default"))) void** __cudaRegisterFatBinary(void* fat_cubin) {
  using Register = void** (*)(void*);
  static const auto registered = reinterpret_cast<Register>(::dlsym(RTLD_NEXT, "__cudaRegisterFatBinary"));
  if (registered == nullptr) {
    std::fprintf(stderr, "runner: the CUDA runtime's __cudaRegisterFatBinary was not found\n");
    std::_Exit(3);
  }
  using namespace memlab::grading;
  ++registrations;
  if (allowed.empty()) {
    const auto* wrapper = static_cast<const FatbinWrapper*>(fat_cubin);
    if (wrapper != nullptr && wrapper->magic == kWrapperMagic && wrapper->data != nullptr) remember_image(wrapper);
    return registered(fat_cubin);
  }
  if (closed) refuse("a fatbin registered after the build was loaded");
  const auto* wrapper = static_cast<const FatbinWrapper*>(fat_cubin);
  // nvcc's wrapper for a whole-program file: version 1, no list of other fatbins (-rdc's).
  if (wrapper == nullptr || wrapper->magic != kWrapperMagic || wrapper->version != 1 ||
      wrapper->filename_or_fatbins != nullptr || wrapper->data == nullptr) {
    refuse("not a fatbin as nvcc wraps one");
  }
  const std::uint64_t size = fatbin_size(wrapper->data);
  if (size == 0) refuse("not a fatbin");
  const std::string fatbin(static_cast<const char*>(wrapper->data), size);
  for (const std::string& one : allowed) {
    if (one != fatbin) continue;
    FatbinWrapper* copy = private_copy(*wrapper, fatbin);
    remember_image(copy);
    void** handle = registered(copy);
    registered_so_far.push_back({handle, copy, copy->data, handle != nullptr && handle[0] == copy});
    return handle;
  }
  refuse("a fatbin of " + std::to_string(size) + " bytes that is neither the file's nor the table's");
}

// Unregistering is counted too: a fatbin registered and unregistered before the
// runtime loads it leaves no module (fatbins_registered()).
extern "C" __attribute__((visibility("default"))) void __cudaUnregisterFatBinary(void** handle) {
  using Unregister = void (*)(void**);
  static const auto unregistered = reinterpret_cast<Unregister>(::dlsym(RTLD_NEXT, "__cudaUnregisterFatBinary"));
  if (unregistered == nullptr) {
    std::fprintf(stderr, "runner: the CUDA runtime's __cudaUnregisterFatBinary was not found\n");
    std::_Exit(3);
  }
  --memlab::grading::registrations;
  unregistered(handle);
}
