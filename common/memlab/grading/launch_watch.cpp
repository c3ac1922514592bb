// The runner's watch on kernel launches (launch_watch.hpp).
#include "memlab/grading/launch_watch.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>

#if defined(MEMLAB_HAVE_CUPTI)
#include <cupti.h>
#endif

namespace memlab::grading {

namespace {

std::mutex guard;     // a build's threads may launch at the same time
Launches seen;        // since the last take_launches()
bool watching = false;
bool first_call_made = false;    // from then on, a module loaded is code loaded at run time
std::uint32_t modules_before_calls = 0;
std::uint32_t modules_of_its_own = 0;  // the build's code loaded them (Launches::modules_loaded)
// Fatbins registered and not unregistered, as the runtime itself reports its registration calls
// to CUPTI (CUDA 13 on): a build that calls libcudart's own functions by address, not the runner's
// exports, is counted too (red team 24 unregistered the runner's kernel-less fatbin that way).
bool registrations_watched = false;
int fatbins_live = 0;
std::thread::id serving_thread;  // the thread that calls the lab's functions

#if defined(MEMLAB_HAVE_CUPTI)
// Every driver call that starts work on the GPU. The runtime's launches
// (<<<...>>>, cudaLaunchKernel*, cooperative launches) end in one of these.
constexpr CUpti_CallbackId kKernelLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice,
};
// Graphs: launched, or made by capturing a stream (a launch captured is not run, red team
// 21) or by adding kernel nodes. Their kernels are not named as they run.
constexpr CUpti_CallbackId kGraphWork[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2,
};

bool is_graph_work(CUpti_CallbackId id) {
  for (const CUpti_CallbackId graph : kGraphWork) {
    if (id == graph) return true;
  }
  return false;
}

// The dynamic shared memory a launch asks for, from the driver call's parameters.
std::uint32_t dynamic_shared_bytes(CUpti_CallbackId id, const void* parameters) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      return static_cast<const cuLaunchKernel_params*>(parameters)->sharedMemBytes;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      return static_cast<const cuLaunchKernel_ptsz_params*>(parameters)->sharedMemBytes;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      return static_cast<const cuLaunchKernelEx_params*>(parameters)->config->sharedMemBytes;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      return static_cast<const cuLaunchKernelEx_ptsz_params*>(parameters)->config->sharedMemBytes;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      return static_cast<const cuLaunchCooperativeKernel_params*>(parameters)->sharedMemBytes;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return static_cast<const cuLaunchCooperativeKernel_ptsz_params*>(parameters)->sharedMemBytes;
    default:
      return 0;  // cuLaunch and cuLaunchGrid take theirs from cuFuncSetSharedSize
  }
}

#if CUPTI_API_VERSION >= 130000
constexpr CUpti_CallbackId kRegister = CUPTI_RUNTIME_TRACE_CBID___cudaRegisterFatBinary_v13000;
constexpr CUpti_CallbackId kUnregister = CUPTI_RUNTIME_TRACE_CBID___cudaUnregisterFatBinary_v13000;
#endif

void CUPTIAPI on_event(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  const std::lock_guard<std::mutex> lock(guard);
#if CUPTI_API_VERSION >= 130000
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) {
      fatbins_live += id == kRegister ? 1 : id == kUnregister ? -1 : 0;
    }
    return;
  }
#endif
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) ++(first_call_made ? modules_of_its_own : modules_before_calls);
    return;
  }
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite != CUPTI_API_ENTER) return;
  if (std::this_thread::get_id() != serving_thread) ++seen.from_other_threads;
  if (is_graph_work(id) || call->symbolName == nullptr || call->symbolName[0] == '\0') {
    ++seen.unnamed;
  } else {
    seen.kernels.push_back({call->symbolName, dynamic_shared_bytes(id, call->functionParams)});
  }
}

std::string cupti_failure(const char* what, CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown error";
  return std::string(what) + ": " + text;
}
#endif

}  // namespace

std::string watch_launches(int fatbins_registered) {
#if defined(MEMLAB_HAVE_CUPTI)
  CUpti_SubscriberHandle subscriber = nullptr;
  CUptiResult result = cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_event), nullptr);
  if (result != CUPTI_SUCCESS) return cupti_failure("cuptiSubscribe", result);
  const auto enable = [subscriber](CUpti_CallbackDomain domain, CUpti_CallbackId id) {
    return cuptiEnableCallback(1, subscriber, domain, id);
  };
  for (const CUpti_CallbackId id : kKernelLaunches) {
    if ((result = enable(CUPTI_CB_DOMAIN_DRIVER_API, id)) != CUPTI_SUCCESS) return cupti_failure("cuptiEnableCallback", result);
  }
  for (const CUpti_CallbackId id : kGraphWork) {
    if ((result = enable(CUPTI_CB_DOMAIN_DRIVER_API, id)) != CUPTI_SUCCESS) return cupti_failure("cuptiEnableCallback", result);
  }
  if ((result = enable(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED)) != CUPTI_SUCCESS) {
    return cupti_failure("cuptiEnableCallback", result);
  }
  bool registrations = false;
#if CUPTI_API_VERSION >= 130000
  registrations = enable(CUPTI_CB_DOMAIN_RUNTIME_API, kRegister) == CUPTI_SUCCESS &&
                  enable(CUPTI_CB_DOMAIN_RUNTIME_API, kUnregister) == CUPTI_SUCCESS;
#endif
  const std::lock_guard<std::mutex> lock(guard);
  registrations_watched = registrations;
  fatbins_live = fatbins_registered;
  watching = true;
  serving_thread = std::this_thread::get_id();
  return "";
#else
  return "this runner was built without CUPTI";
#endif
}

Launches take_launches(int fatbins) {
  const std::lock_guard<std::mutex> lock(guard);
  if (registrations_watched) fatbins = fatbins_live;
  if (!std::exchange(first_call_made, true) && static_cast<std::int64_t>(modules_before_calls) > fatbins) {
    // Run 93: every fair runner saw exactly one module per fatbin registered; a constructor that
    // loaded one of its own made it one more.
    modules_of_its_own += modules_before_calls - static_cast<std::uint32_t>(std::max(fatbins, 0));
  }
  Launches taken = std::exchange(seen, Launches{});
  taken.watched = watching;
  taken.modules_loaded = modules_of_its_own;
  return taken;
}

std::uint32_t modules_loaded_before_calls() {
  const std::lock_guard<std::mutex> lock(guard);
  return modules_before_calls;
}

int fatbins_seen_registered() {
  const std::lock_guard<std::mutex> lock(guard);
  return registrations_watched ? fatbins_live : -1;
}

}  // namespace memlab::grading
