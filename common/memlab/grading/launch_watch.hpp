/// @file launch_watch.hpp
/// @brief The runner's watch on the kernels each call of a lab function launches.
///
/// The method checks (machine_code.hpp) read every kernel of the student's
/// build, but which of them a function launches is known only where it runs:
/// a build can hold a tiled kernel and have its tiled step launch the naive
/// one (red team 6). The runner subscribes to the CUDA driver's launch calls
/// through CUPTI's callback interface before it loads the build, so every
/// launch, by the runtime's `<<<...>>>`, its launch functions or the driver's,
/// reaches the watch with the kernel's name. A CUDA graph (captured, built or
/// launched) names no kernel that surely runs: it is counted as unnamed. The
/// watch also counts launches from threads of the build's own, and modules of
/// the build's own: loaded after the first call, or before it from an image
/// that is no fatbin registered as it was registered, or more or fewer than
/// the fatbins registered. It costs a function call per launch, no GPU time.
///
/// Runs in the student's runner: what it reports is that process's word, read
/// below the build's own code (a build would have to find CUPTI's subscriber in
/// memory and undo it; grader/README.md, threat model).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct CUstream_st;  // cudaStream_t's type

namespace memlab::grading {

/// Runner side: now on the steady clock, in nanoseconds: the clock of
/// Launches::last_launch_ns and of the hold's end it is compared with
/// (remote.hpp, CallOptions::hold_over_ns).
inline std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// One kernel launch, as the runner's watch saw it.
struct KernelLaunch {
  std::string kernel;  ///< the kernel's mangled name
  /// The dynamic shared memory the launch asked for (its third parameter), in
  /// bytes: 0 for a launch through the driver's oldest calls.
  std::uint32_t dynamic_shared_bytes = 0;
  /// The grid and the block the launch asked for (x, y, z): 0s for a launch
  /// through the driver's oldest calls (cuLaunch, cuLaunchGrid).
  std::array<std::uint32_t, 3> grid{};
  std::array<std::uint32_t, 3> block{};  ///< see grid
  /// Where the call was timed (time_each_launch()): the kernel's start on the
  /// GPU's clock, by CUPTI's kernel record, in milliseconds after the first
  /// timed launch of the call began. Negative where not timed.
  float started_ms = -1.0f;
  float ended_ms = -1.0f;  ///< see started_ms
  std::uint32_t stream_id = 0;  ///< where timed: CUPTI's id of the stream the kernel ran on
  /// Where timed: the driver call's correlation id, by which the runner finds
  /// its kernel record (read_launch_times() reads it from each call's reply).
  std::uint32_t correlation = 0;
};

/// The kernels one call of a lab function launched, as the runner's watch saw them.
struct Launches {
  bool watched = false;               ///< the runner watched (CUPTI there); if not, nothing is known
  std::vector<KernelLaunch> kernels;  ///< in launch order
  std::uint32_t unnamed = 0;         ///< launches that name no kernel, and CUDA graphs made or launched
  /// Launches from a thread other than the one that calls the lab's functions,
  /// during the call or since the last one: work started where no call can
  /// answer for it (red team 21 launched a double kernel from a thread 2 ms
  /// after the call returned).
  std::uint32_t from_other_threads = 0;
  /// GPU modules the build's own code loaded, since the runner began: loaded
  /// once calls are made (the build's are loaded when the runner's context is
  /// made, eagerly), or before the first call beyond the fatbins registered (a
  /// constructor's). They are code the grader never read, whatever their
  /// kernels are named (red team 21 named one like a kernel of the build), and
  /// they stay loaded: every call reports them, not only the first after.
  std::uint32_t modules_loaded = 0;
  /// Runner side: when the serving thread made the call's last launch, by
  /// steady_now_ns() (0: none).
  std::int64_t last_launch_ns = 0;
  /// The call's last launch was made once the hold of the stream before it
  /// was over (remote.hpp, CallOptions::hold_over_ns): the call waited for the
  /// stream before it had queued its launches, which then ran at the host's
  /// pace. The last, not the first: a decoy launch before the wait does not
  /// hide it (red team 29).
  bool launched_after_hold = false;
};

/// Runner side: starts watching this process's kernel launches, and the
/// images its modules are loaded from: until the first call, an image that
/// @p registered_image does not know (a fatbin registered through the
/// runner's export, registered_code.hpp) is the build's own. Returns "" or why
/// it cannot (CUPTI missing, or another subscriber); without a watch,
/// take_launches() reports nothing watched.
std::string watch_launches(bool (*registered_image)(const void*));

/// Runner side: turns CUPTI's kernel records on or off. On before a call
/// whose launches are to be timed (it takes time, so before the stream's
/// hold); take_launches() turns them off again. Returns "" or why it cannot.
std::string record_kernels(bool on);

/// Runner side: times each kernel launched from the serving thread until the
/// next take_launches(), by CUPTI's kernel records (record_kernels() first):
/// KernelLaunch's started_ms and ended_ms. Records add nothing to a stream, so
/// a student's events around the same launches time what they would time
/// unwatched. Lab 1's step 2 checks a timer against the launches it made
/// itself, not against other calls of the same function (red team 19 padded
/// only those).
void time_each_launch();

/// Runner side: as time_each_launch(), for every call until
/// read_launch_times(): take_launches() hands each call's kernels over
/// untimed, and the times of all of them are read at once, after the last
/// (one wait for the GPU, not one per call). Lab 1's step 2 takes its
/// yardstick from calls the grader makes itself, back to back behind a hold.
void time_launches_of_calls();

/// Runner side: after time_launches_of_calls() and the calls, waits for the
/// GPU and fills in the times of the kernels in @p calls (each call's, as
/// take_launches() gave them), in milliseconds after the first one's start.
void read_launch_times(std::vector<Launches>& calls);

/// Runner side: the launches since the last call, and starts a new list. The
/// first call ends the build's loading: modules loaded before it beyond
/// @p fatbins (registered and not unregistered through the runner's exports,
/// the runner's own included), or short of them (a fatbin unregistered behind
/// the runner's back), or from an image that is no registered fatbin as it was
/// registered, are the build's doing, and so is every module loaded after it
/// (see Launches::modules_loaded).
Launches take_launches(int fatbins);

/// Runner side: while @p hold is set (nullptr: never), each of the first 64
/// CUDA events any thread records (cuEventRecord and its kin, however the
/// build calls them) is followed at once on its stream by @p hold(stream),
/// called from the watch's callback, whose own launches the watch does not
/// list. The order
/// shake delays when each stream starts; this delays what follows an event on
/// its stream, so that work which waits for the event runs first, as it may
/// (red team 32's column sums forked by an event recorded before the zeroing).
void hold_after_event_records(void (*hold)(CUstream_st* stream));

/// Runner side: the streams made in the runner's process (by the build's code:
/// a stream of its own, cudaStreamPerThread's) in the context of @p stream and
/// not destroyed since, @p stream itself left out, newest first, as CUPTI's
/// resource callbacks reported them. The order shake holds each of them for a
/// time of its own (remote.cu): work a lab function puts on a stream of its own
/// made in an earlier call is not ordered with the stream it is given (red team
/// 28's zeroing stream). All of them: a window of the newest would let a file
/// push its racing stream out of it with streams made after it. Empty where
/// launches are not watched, or @p stream was not seen made.
std::vector<CUstream_st*> streams_made_beside(CUstream_st* stream);

/// Runner side: how many modules CUPTI saw loaded before the first call (the
/// build's, the runner's, and any a constructor loaded itself). The runner
/// prints it beside fatbins_registered() when MEMLAB_TRACE_MODULES is set.
std::uint32_t modules_loaded_before_calls();

/// Runner side: the module loads seen through the driver's calls, and how many
/// were of an image not registered before the first call, in words. A
/// diagnostic, printed with modules_loaded_before_calls().
std::string module_loads_seen();

}  // namespace memlab::grading
