// The runner: the only process in which a lab build's code runs while it is
// graded. It loads one build (the student's or the reference), then calls its
// functions as the grader asks over a socket (remote.hpp) and answers with
// their results. It holds no reference code when it runs the student's build,
// no path to the results or the gradebook, and nothing it prints or returns
// decides a verdict: the grader checks every result itself.
//
//   labN_runner --library <lib.so> --socket <fd> [--allowed-code <fd>]
//
// With --allowed-code (the student's runner under grade.py), the build may
// register only the GPU code read from that descriptor (registered_code.hpp).
//
// Built once per lab (cmake/Labs.cmake), with the lab's grading/labN_api.hpp and Api type
// given as MEMLAB_LAB_HEADER, MEMLAB_LAB_API and MEMLAB_LAB_SYMBOL.
#include MEMLAB_LAB_HEADER

#include "memlab/files.hpp"
#include "memlab/grading/launch_watch.hpp"
#include "memlab/grading/registered_code.hpp"
#include "memlab/grading/remote.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <utility>

namespace {

using Api = MEMLAB_LAB_API;
namespace remote = memlab::grading::remote;

void call_function(const void* api, std::uint32_t index, const remote::CallOptions& options, remote::Reader& in,
                   remote::Writer& out) {
  memlab::grading::check_registrations();  // a few comparisons; nothing when no code is guarded
  // Kernels launched between calls by this thread are the runner's own probes: not this call's. What
  // other threads launched since the last call is reported with this one; modules the build loaded
  // itself are reported with every call (launch_watch.hpp).
  memlab::grading::Launches between = memlab::grading::take_launches(memlab::grading::fatbins_registered());
  static bool first_call = true;  // the diagnostic is read once, not on every call
  if (std::exchange(first_call, false) && std::getenv("MEMLAB_TRACE_MODULES") != nullptr) {
    std::fprintf(stderr,
                 "runner (pid %d): before the first call, %u modules loaded, %d fatbins registered; %s\n",
                 static_cast<int>(::getpid()), memlab::grading::modules_loaded_before_calls(),
                 memlab::grading::fatbins_registered(), memlab::grading::module_loads_seen().c_str());
  }
  if (options.time_each_launch) memlab::grading::time_each_launch();
  remote::Writer result;
  // Off again however the call ends.
  struct RecordHolds {
    ~RecordHolds() { memlab::grading::hold_after_event_records(nullptr); }
  } record_holds;
  const auto shake = [&] {
    remote::shake_streams(options, memlab::grading::streams_made_beside(remote::runner_stream()));
    if (options.hold_after_records) memlab::grading::hold_after_event_records(remote::hold_after_event_record);
    // The shake's kernels are the runner's own, as the probes between calls are.
    between.from_other_threads +=
        memlab::grading::take_launches(memlab::grading::fatbins_registered()).from_other_threads;
  };
  const bool shaken = options.shake_seed != 0;
  remote::dispatch(*static_cast<const Api*>(api), index, in, result, shaken ? std::function<void()>(shake) : nullptr);
  memlab::grading::Launches during = memlab::grading::take_launches(memlab::grading::fatbins_registered());
  during.from_other_threads += between.from_other_threads;  // modules_loaded counts since the runner began
  if (options.hold_over_ns != nullptr && during.last_launch_ns != 0) {
    const std::int64_t hold_over = options.hold_over_ns->load();
    during.launched_after_hold = hold_over != 0 && during.last_launch_ns >= hold_over;
  }
  remote::Codec<memlab::grading::Launches>::put(out, during);
  out.append(result.bytes().data(), result.bytes().size());
}

// Before a call's preamble: CUPTI's kernel records, for a call whose launches are timed.
void prepare_call(const remote::CallOptions& options) {
  const std::string unrecorded = memlab::grading::record_kernels(options.time_each_launch);
  if (!unrecorded.empty()) std::fprintf(stderr, "runner: launches not timed: %s\n", unrecorded.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string library;
  int socket = -1;
  int allowed_code = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--library") == 0) library = argv[i + 1];
    if (std::strcmp(argv[i], "--socket") == 0) socket = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--allowed-code") == 0) allowed_code = std::atoi(argv[i + 1]);
  }
  if (library.empty() || socket < 0) {
    std::fprintf(stderr, "usage: %s --library <lib.so> --socket <fd> (started by a lab grader)\n", argv[0]);
    return 2;
  }
  // Every registered module is loaded when the context is made, before the build's code runs
  // again: what close_registrations() checked is what the GPU gets, and a module loaded once
  // calls are made is code loaded at run time (launch_watch.hpp).
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  if (allowed_code >= 0) {
    try {
      memlab::grading::allow_only(memlab::read_file("/proc/self/fd/" + std::to_string(allowed_code)));
    } catch (const std::exception& error) {
      std::fprintf(stderr, "runner: %s\n", error.what());
      return 3;
    }
    ::close(allowed_code);
  }
  // Before the build is loaded, so that no code of its own runs first: the kernels each call
  // launches, by name (launch_watch.hpp). Without it the grader falls back to reading the whole build.
  const std::string unwatched = memlab::grading::watch_launches(memlab::grading::registered_image);
  if (!unwatched.empty()) std::fprintf(stderr, "runner: kernel launches not watched: %s\n", unwatched.c_str());
  // RTLD_NOW: a function the lab asks for but the build lacks is named here, at load time.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "runner: cannot load %s: %s\n", library.c_str(), dlerror());
    return 2;
  }
  memlab::grading::close_registrations();
  const void* api = dlsym(handle, MEMLAB_LAB_SYMBOL);
  if (api == nullptr) {
    std::fprintf(stderr, "runner: %s does not export %s: was it built for this lab?\n", library.c_str(),
                 MEMLAB_LAB_SYMBOL);
    return 2;
  }
  try {
    remote::Handlers handlers;
    handlers.call = call_function;
    handlers.prepare = prepare_call;
    handlers.time_calls = memlab::grading::time_launches_of_calls;
    handlers.read_times = memlab::grading::read_launch_times;
    return remote::serve(socket, handlers, api);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "runner: %s\n", error.what());
    return 3;
  }
}
