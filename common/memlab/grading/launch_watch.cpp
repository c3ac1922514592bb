// The runner's watch on kernel launches (launch_watch.hpp).
#include "memlab/grading/launch_watch.hpp"

#include <mutex>
#include <utility>

#if defined(MEMLAB_HAVE_CUPTI)
#include <cupti.h>
#endif

namespace memlab::grading {

namespace {

std::mutex guard;     // a build's threads may launch at the same time
Launches seen;        // since the last take_launches()
bool watching = false;

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
constexpr CUpti_CallbackId kGraphLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

void CUPTIAPI on_launch(void*, CUpti_CallbackDomain, CUpti_CallbackId id, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite != CUPTI_API_ENTER) return;
  const std::lock_guard<std::mutex> lock(guard);
  const bool graph = id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
  if (graph || call->symbolName == nullptr) {
    ++seen.unnamed;
  } else {
    seen.kernels.emplace_back(call->symbolName);
  }
}

std::string cupti_failure(const char* what, CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown error";
  return std::string(what) + ": " + text;
}
#endif

}  // namespace

std::string watch_launches() {
#if defined(MEMLAB_HAVE_CUPTI)
  CUpti_SubscriberHandle subscriber = nullptr;
  CUptiResult result = cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_launch), nullptr);
  if (result != CUPTI_SUCCESS) return cupti_failure("cuptiSubscribe", result);
  for (const CUpti_CallbackId id : kKernelLaunches) {
    result = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
    if (result != CUPTI_SUCCESS) return cupti_failure("cuptiEnableCallback", result);
  }
  for (const CUpti_CallbackId id : kGraphLaunches) {
    result = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
    if (result != CUPTI_SUCCESS) return cupti_failure("cuptiEnableCallback", result);
  }
  const std::lock_guard<std::mutex> lock(guard);
  watching = true;
  return "";
#else
  return "this runner was built without CUPTI";
#endif
}

Launches take_launches() {
  const std::lock_guard<std::mutex> lock(guard);
  Launches taken = std::exchange(seen, Launches{});
  taken.watched = watching;
  return taken;
}

}  // namespace memlab::grading
