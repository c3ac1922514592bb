
// ---- run 93's probe: a module loaded by a constructor, through the driver, before the first call ----
#include <dlfcn.h>
#include <cstdio>
namespace {
const char kProbePtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry probe_hidden_kernel()\n{\n\tret;\n}\n";
__attribute__((constructor)) void probe_load_a_module() {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (cuda == nullptr) return;
  using Init = int (*)(unsigned);
  using DeviceGet = int (*)(int*, int);
  using Retain = int (*)(void**, int);
  using SetCurrent = int (*)(void*);
  using Load = int (*)(void**, const void*);
  auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
  auto device_get = reinterpret_cast<DeviceGet>(dlsym(cuda, "cuDeviceGet"));
  auto retain = reinterpret_cast<Retain>(dlsym(cuda, "cuDevicePrimaryCtxRetain"));
  auto set_current = reinterpret_cast<SetCurrent>(dlsym(cuda, "cuCtxSetCurrent"));
  auto load = reinterpret_cast<Load>(dlsym(cuda, "cuModuleLoadData"));
  int device = 0;
  void* context = nullptr;
  void* module = nullptr;
  const int results[] = {init(0), device_get(&device, 0), retain(&context, device), set_current(context),
                         load(&module, kProbePtx)};
  std::fprintf(stderr, "probe constructor: cuInit %d, cuDeviceGet %d, retain %d, set %d, cuModuleLoadData %d\n",
               results[0], results[1], results[2], results[3], results[4]);
}
}  // namespace
