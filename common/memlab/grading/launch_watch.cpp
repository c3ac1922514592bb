// The runner's watch on kernel launches (launch_watch.hpp).
#include "memlab/grading/launch_watch.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(MEMLAB_HAVE_CUPTI)
#include "memlab/grading/driver_entry.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
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
// The driver's module loads seen, and those before the first call whose image is not a fatbin
// registered through the runner's export, as registered (red team 24 unregistered a fatbin
// through libcudart's own function, by address, to keep the counts level).
bool (*registered)(const void*) = nullptr;
std::uint32_t loads_seen = 0;
std::uint32_t loads_not_registered = 0;
std::thread::id serving_thread;  // the thread that calls the lab's functions
// Streams made in the runner's process and not yet destroyed, with their contexts, newest last
// (streams_made_beside()).
struct MadeStream {
  void* context;
  CUstream_st* stream;
};
std::vector<MadeStream> streams_made;

#if defined(MEMLAB_HAVE_CUPTI)
bool recording_kernels = false;  // record_kernels(true), until the timed call's launches are read
bool timing = false;             // time_each_launch(), for the call under way

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
// Event records (hold_after_event_records()).
constexpr CUpti_CallbackId kEventRecords[] = {
    CUPTI_DRIVER_TRACE_CBID_cuEventRecord,
    CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz,
};
std::atomic<void (*)(CUstream_st*)> record_hold{nullptr};
// Holds after the first this many records of a call only: each costs its stream half a millisecond,
// and a call of many thousands would otherwise run past the call's time limit (red team 34).
constexpr int kMostRecordHolds = 64;
std::atomic<int> records_held{0};
thread_local bool holding = false;  // the hold after a record is being enqueued: its launch is the runner's

// The stream an event record was made on, as a handle a launch takes.
CUstream recorded_on(CUpti_CallbackId id, const void* parameters) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
      return static_cast<const cuEventRecord_params*>(parameters)->hStream;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
      return static_cast<const cuEventRecordWithFlags_params*>(parameters)->hStream;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz: {
      const CUstream stream = static_cast<const cuEventRecord_ptsz_params*>(parameters)->hStream;
      return stream == nullptr ? CU_STREAM_PER_THREAD : stream;
    }
    default: {
      const CUstream stream = static_cast<const cuEventRecordWithFlags_ptsz_params*>(parameters)->hStream;
      return stream == nullptr ? CU_STREAM_PER_THREAD : stream;
    }
  }
}

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

// Whether @p id is one of @p ids (kGraphWork, kModuleLoads).
template <std::size_t N>
bool listed(const CUpti_CallbackId (&ids)[N], CUpti_CallbackId id) {
  return std::find(std::begin(ids), std::end(ids), id) != std::end(ids);
}

// What a launch asks for (dynamic shared memory, grid and block), from the driver call's parameters;
// cuLaunch and cuLaunchGrid take theirs from calls made before, and stay 0.
template <typename Parameters>
void set_shape(KernelLaunch& launch, const Parameters& asked) {
  launch.dynamic_shared_bytes = asked.sharedMemBytes;
  launch.grid = {asked.gridDimX, asked.gridDimY, asked.gridDimZ};
  launch.block = {asked.blockDimX, asked.blockDimY, asked.blockDimZ};
}

KernelLaunch launch_of(CUpti_CallbackId id, const char* symbol, const void* parameters) {
  KernelLaunch launch;
  launch.kernel = symbol;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      set_shape(launch, *static_cast<const cuLaunchKernel_params*>(parameters));
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      set_shape(launch, *static_cast<const cuLaunchKernel_ptsz_params*>(parameters));
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      set_shape(launch, *static_cast<const cuLaunchKernelEx_params*>(parameters)->config);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      set_shape(launch, *static_cast<const cuLaunchKernelEx_ptsz_params*>(parameters)->config);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      set_shape(launch, *static_cast<const cuLaunchCooperativeKernel_params*>(parameters));
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      set_shape(launch, *static_cast<const cuLaunchCooperativeKernel_ptsz_params*>(parameters));
      break;
    default:
      break;
  }
  return launch;
}

// Kernel records of a timed call (time_each_launch()): CUPTI's activity records of concurrent
// kernels, each with the GPU's timestamps at the kernel's start and end and the correlation id of
// the driver call that launched it. Unlike events, they add nothing to the launch's stream: a
// student's events around the launch time what they would time unwatched (run 108: two events of
// the runner's own around each launch added 2.5 us to every launch a student's events timed).
constexpr std::size_t kRecordBufferBytes = 1 << 20;
struct KernelTimes {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t stream_id = 0;  // CUPTI's id of the stream it ran on
};
std::mutex records_guard;                             // CUPTI delivers buffers from a thread of its own
std::map<std::uint32_t, KernelTimes> kernel_records;  // by correlation id
bool timing_across_calls = false;  // time_launches_of_calls(), until read_launch_times()

void CUPTIAPI give_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* most_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kRecordBufferBytes));
  *size = *buffer == nullptr ? 0 : kRecordBufferBytes;
  *most_records = 0;  // as many as fit
}

void CUPTIAPI take_buffer(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  {
    const std::lock_guard<std::mutex> lock(records_guard);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      kernel_records[kernel->correlationId] = {kernel->start, kernel->end, kernel->streamId};
    }
  }
  std::free(buffer);
}

// Each timed launch's start and end by its kernel record (KernelLaunch::correlation set), in
// milliseconds after the first one's start. The calls have returned; their kernels are waited for
// before the records are asked for.
void read_times(const std::vector<KernelLaunch*>& launches) {
  static const auto synchronize = driver_function<PFN_cuCtxSynchronize_v2000>("cuCtxSynchronize");
  synchronize();
  cuptiActivityFlushAll(0);
  record_kernels(false);
  const std::lock_guard<std::mutex> lock(records_guard);
  std::uint64_t origin = UINT64_MAX;
  for (const KernelLaunch* launch : launches) {
    const auto found = kernel_records.find(launch->correlation);
    if (found != kernel_records.end()) origin = std::min(origin, found->second.start_ns);
  }
  for (KernelLaunch* launch : launches) {
    const auto found = kernel_records.find(launch->correlation);
    if (found == kernel_records.end() || found->second.end_ns < found->second.start_ns) continue;
    launch->started_ms = static_cast<float>(1e-6 * static_cast<double>(found->second.start_ns - origin));
    launch->ended_ms = static_cast<float>(1e-6 * static_cast<double>(found->second.end_ns - origin));
    launch->stream_id = found->second.stream_id;
  }
  kernel_records.clear();
}

void add_timed(Launches& call, std::vector<KernelLaunch*>& launches) {
  for (KernelLaunch& launch : call.kernels) {
    if (launch.correlation != 0) launches.push_back(&launch);
  }
}

// The driver's calls that load a module or a library, and the image each is given (nullptr: a
// file, never a registered fatbin). The runtime loads each registered fatbin through one of them.
constexpr CUpti_CallbackId kModuleLoads[] = {
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoad,          CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData,
    CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx,    CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData,     CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile,
};

const void* image_of(CUpti_CallbackId id, const void* parameters) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData:
      return static_cast<const cuModuleLoadData_params*>(parameters)->image;
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx:
      return static_cast<const cuModuleLoadDataEx_params*>(parameters)->image;
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary:
      return static_cast<const cuModuleLoadFatBinary_params*>(parameters)->fatCubin;
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData:
      return static_cast<const cuLibraryLoadData_params*>(parameters)->code;
    default:
      return nullptr;  // from a file
  }
}

void CUPTIAPI on_event(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (holding) return;  // the runner's hold, launched from this thread's callback below
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && listed(kEventRecords, id)) {
    // Outside the guard: the hold's own launch comes back here.
    const auto* call = static_cast<const CUpti_CallbackData*>(data);
    void (*const hold)(CUstream_st*) = record_hold.load();
    // From any thread: a record made on a thread of the build's own is held as well (red team 34).
    if (hold != nullptr && call->callbackSite == CUPTI_API_EXIT &&
        *static_cast<const CUresult*>(call->functionReturnValue) == CUDA_SUCCESS &&
        records_held.fetch_add(1) < kMostRecordHolds) {
      holding = true;
      hold(recorded_on(id, call->functionParams));
      holding = false;
    }
    return;
  }
  const std::lock_guard<std::mutex> lock(guard);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) ++(first_call_made ? modules_of_its_own : modules_before_calls);
    const auto* resource = static_cast<const CUpti_ResourceData*>(data);
    if (id == CUPTI_CBID_RESOURCE_STREAM_CREATED || id == CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING) {
      CUstream_st* stream = resource->resourceHandle.stream;
      streams_made.erase(std::remove_if(streams_made.begin(), streams_made.end(),
                                        [stream](const MadeStream& made) { return made.stream == stream; }),
                         streams_made.end());
      if (id == CUPTI_CBID_RESOURCE_STREAM_CREATED && stream != nullptr) {
        streams_made.push_back({resource->context, stream});
      }
    }
    return;
  }
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite != CUPTI_API_ENTER) return;
  if (listed(kModuleLoads, id)) {
    // Once calls are made, every module loaded counts (MODULE_LOADED above).
    ++loads_seen;
    const void* image = image_of(id, call->functionParams);
    if (!first_call_made && (image == nullptr || registered == nullptr || !registered(image))) ++loads_not_registered;
    return;
  }
  const bool serving = std::this_thread::get_id() == serving_thread;
  if (!serving) ++seen.from_other_threads;
  if (serving) seen.last_launch_ns = steady_now_ns();
  if (listed(kGraphWork, id) || call->symbolName == nullptr || call->symbolName[0] == '\0') {
    ++seen.unnamed;
  } else {
    KernelLaunch& launch = seen.kernels.emplace_back(launch_of(id, call->symbolName, call->functionParams));
    if (timing && serving) launch.correlation = call->correlationId;
  }
}

std::string cupti_failure(const char* what, CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown error";
  return std::string(what) + ": " + text;
}
#endif

}  // namespace

std::string watch_launches(bool (*registered_image)(const void*)) {
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
  for (const CUpti_CallbackId id : kEventRecords) {
    if ((result = enable(CUPTI_CB_DOMAIN_DRIVER_API, id)) != CUPTI_SUCCESS) return cupti_failure("cuptiEnableCallback", result);
  }
  for (const CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_STREAM_CREATED,
                                    CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING}) {
    if ((result = enable(CUPTI_CB_DOMAIN_RESOURCE, id)) != CUPTI_SUCCESS) return cupti_failure("cuptiEnableCallback", result);
  }
  for (const CUpti_CallbackId id : kModuleLoads) {
    if ((result = enable(CUPTI_CB_DOMAIN_DRIVER_API, id)) != CUPTI_SUCCESS) return cupti_failure("cuptiEnableCallback", result);
  }
  const std::lock_guard<std::mutex> lock(guard);
  registered = registered_image;
  watching = true;
  serving_thread = std::this_thread::get_id();
  return "";
#else
  return "this runner was built without CUPTI";
#endif
}

std::string record_kernels(bool on) {
#if defined(MEMLAB_HAVE_CUPTI)
  const std::lock_guard<std::mutex> lock(guard);
  if (!on) {
    if (std::exchange(recording_kernels, false)) cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    return "";
  }
  if (!watching) return "launches are not watched";
  static const CUptiResult registered_buffers = cuptiActivityRegisterCallbacks(give_buffer, take_buffer);
  if (registered_buffers != CUPTI_SUCCESS) return cupti_failure("cuptiActivityRegisterCallbacks", registered_buffers);
  const CUptiResult result = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  recording_kernels = result == CUPTI_SUCCESS;
  return recording_kernels ? "" : cupti_failure("cuptiActivityEnable", result);
#else
  return on ? "this runner was built without CUPTI" : "";
#endif
}

void time_each_launch() {
#if defined(MEMLAB_HAVE_CUPTI)
  const std::lock_guard<std::mutex> lock(guard);
  timing = true;
#endif
}

void time_launches_of_calls() {
#if defined(MEMLAB_HAVE_CUPTI)
  const std::lock_guard<std::mutex> lock(guard);
  timing = timing_across_calls = true;
#endif
}

void read_launch_times(std::vector<Launches>& calls) {
#if defined(MEMLAB_HAVE_CUPTI)
  {
    const std::lock_guard<std::mutex> lock(guard);
    if (!std::exchange(timing_across_calls, false)) return;
    timing = false;
  }
  std::vector<KernelLaunch*> launches;
  for (Launches& call : calls) add_timed(call, launches);
  read_times(launches);
#else
  (void)calls;
#endif
}

Launches take_launches(int fatbins) {
  Launches taken;
#if defined(MEMLAB_HAVE_CUPTI)
  bool was_timing = false;
#endif
  {
    const std::lock_guard<std::mutex> lock(guard);
    if (!std::exchange(first_call_made, true)) {
      // Runs 93, 103 and 105: every fair runner saw exactly one module per fatbin registered; a
      // constructor that loaded one of its own made it one more, and one that unregistered a fatbin
      // through libcudart's own function (red teams 24 and 25) one fewer. Where no load was seen
      // (compute-sanitizer loads modules its own way) only more counts. And a load of an image not
      // registered is the build's own however the counts stand.
      const std::int64_t difference = static_cast<std::int64_t>(modules_before_calls) - fatbins;
      const auto uneven = static_cast<std::uint32_t>(difference > 0 ? difference : loads_seen > 0 ? -difference : 0);
      modules_of_its_own += std::max(uneven, loads_not_registered);
    }
    taken = std::exchange(seen, Launches{});
    taken.watched = watching;
    taken.modules_loaded = modules_of_its_own;
#if defined(MEMLAB_HAVE_CUPTI)
    // Across calls, read_launch_times() reads them all at the end.
    if (!timing_across_calls) was_timing = std::exchange(timing, false);
#endif
  }
#if defined(MEMLAB_HAVE_CUPTI)
  // Outside the guard: CUPTI may deliver the records from a thread of its own.
  if (was_timing) {
    std::vector<KernelLaunch*> launches;
    add_timed(taken, launches);
    read_times(launches);
  }
#endif
  return taken;
}

void hold_after_event_records(void (*hold)(CUstream_st* stream)) {
#if defined(MEMLAB_HAVE_CUPTI)
  records_held.store(0);
  record_hold.store(hold);
#else
  (void)hold;
#endif
}

std::vector<CUstream_st*> streams_made_beside(CUstream_st* stream) {
  std::vector<CUstream_st*> beside;
#if defined(MEMLAB_HAVE_CUPTI)
  const std::lock_guard<std::mutex> lock(guard);
  const auto mine = std::find_if(streams_made.begin(), streams_made.end(),
                                 [stream](const MadeStream& made) { return made.stream == stream; });
  if (mine == streams_made.end()) return beside;
  for (auto made = streams_made.rbegin(); made != streams_made.rend(); ++made) {
    if (made->stream == stream || made->context != mine->context) continue;
    beside.push_back(made->stream);
  }
#else
  (void)stream;
#endif
  return beside;
}

std::uint32_t modules_loaded_before_calls() {
  const std::lock_guard<std::mutex> lock(guard);
  return modules_before_calls;
}

std::string module_loads_seen() {
  const std::lock_guard<std::mutex> lock(guard);
  return std::to_string(loads_seen) + " module loads by the driver's calls, " + std::to_string(loads_not_registered) +
         " of an image not registered";
}

}  // namespace memlab::grading
