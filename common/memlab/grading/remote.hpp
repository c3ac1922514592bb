/// @file remote.hpp
/// @brief Calling a lab build that runs in another process: the student's code
/// never shares an address space with the grader or the reference.
///
/// A lab's functions are reached through its `Api` struct, a table of function
/// pointers. The grader holds, for each side (student, reference), a table of
/// the same type whose entries are stubs: a stub writes its arguments to a
/// socket, a runner process (runner_main.cpp) that has loaded that side's build
/// calls the real function, waits for the GPU, and sends the result back.
/// Device pointers cross as file descriptors of the grader's own allocations
/// (shareable.hpp), so both sides work on the grader's buffers, and only the
/// grader reads them to decide a verdict. The stub tables are made from the Api struct itself
/// (its fields are counted and typed by aggregate reflection), so a lab
/// declares nothing for this beyond its Api.
///
/// Every call is synchronous: the stub first waits for the grader's own GPU
/// work (inputs it just wrote), and the runner waits for all of its device's
/// work before it answers. The grader's clock around a call, until the GPU is
/// idle again, less the measured base, is the call's time (remote_clock()).
#pragma once

#include "memlab/grading/launch_watch.hpp"
#include "memlab/timing.cuh"

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

/// Calls into lab builds that run in runner processes (see remote.hpp).
namespace memlab::grading::remote {

/// Whose build a runner holds.
/// Whose build a runner holds. Side::base is a second runner of the reference
/// build that only measures the base of the grader's clock (RemoteClock), so
/// that a timed call of either side follows another process's call alike.
enum class Side : int { student = 0, reference = 1, base = 2 };

/// "the student's code", "the reference" or "the grader's clock".
const char* describe(Side side);

/// @name Bytes on the wire
/// @{

/// Appends values to a message.
class Writer {
 public:
  /// Appends the bytes of a trivially copyable @p value.
  template <typename T>
  void raw(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "only plain values cross as bytes");
    append(&value, sizeof value);
  }
  /// Appends @p size bytes from @p data.
  void append(const void* data, std::size_t size) {
    if (size == 0) return;
    const std::size_t old_size = bytes_.size();
    bytes_.resize(old_size + size);
    std::memcpy(bytes_.data() + old_size, data, size);
  }
  /// The message so far.
  const std::vector<unsigned char>& bytes() const { return bytes_; }
  /// Sends the file descriptor @p descriptor with the message (it stays open
  /// here); returns its number among the message's descriptors.
  std::uint32_t attach(int descriptor) {
    descriptors_.push_back(descriptor);
    return static_cast<std::uint32_t>(descriptors_.size() - 1);
  }
  /// The descriptors attached so far.
  const std::vector<int>& descriptors() const { return descriptors_; }

 private:
  std::vector<unsigned char> bytes_;
  std::vector<int> descriptors_;
};

/// Reads values from a message; a message too short throws (never reads past its end).
class Reader {
 public:
  /// Reads @p bytes, which must outlive the reader.
  explicit Reader(const std::vector<unsigned char>& bytes)
      : next_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  /// The next trivially copyable value.
  template <typename T>
  T raw() {
    static_assert(std::is_trivially_copyable_v<T>, "only plain values cross as bytes");
    T value;
    take(&value, sizeof value);
    return value;
  }
  /// Copies the next @p size bytes to @p data.
  void take(void* data, std::size_t size) {
    if (static_cast<std::size_t>(end_ - next_) < size) throw std::runtime_error("a message ended early");
    std::memcpy(data, next_, size);
    next_ += size;
  }
  /// Bytes not read yet.
  std::size_t left() const { return static_cast<std::size_t>(end_ - next_); }

 private:
  const unsigned char* next_;
  const unsigned char* end_;
};
/// @}

/// A device pointer of the grader's, as another process can open it: the
/// allocation (a shareable::Allocation, whose file descriptor travels with the
/// message) and the offset into it.
struct SharedPointer {
  std::uint64_t buffer_id = 0;   ///< the allocation's unique id in the grader's process
  std::uint64_t size = 0;        ///< the allocation's bytes
  std::uint64_t offset = 0;      ///< bytes from the allocation's start
  std::uint32_t descriptor = 0;  ///< which of the message's file descriptors is the allocation's
};

/// Grader side: @p device_pointer as a runner can open it, its allocation's
/// descriptor attached to @p out; throws if it is not shareable device memory.
SharedPointer share(const void* device_pointer, Writer& out);
/// Runner side: the address of @p pointer in this process (the allocation is mapped once).
void* open_shared(const SharedPointer& pointer);
/// Runner side: the stream the lab's functions are given in place of the grader's.
cudaStream_t runner_stream();

/// How a value of type T crosses: plain values as bytes, device pointers as
/// SharedPointer, the stream not at all, vectors as a count and bytes.
template <typename T, typename = void>
struct Codec {
  static_assert(std::is_trivially_copyable_v<T>, "a lab function's parameter or result cannot cross processes");
  /// Writes @p value.
  static void put(Writer& out, const T& value) { out.raw(value); }
  /// Reads a value.
  static T get(Reader& in) { return in.raw<T>(); }
};

/// The stream: each side uses the runner's own.
template <>
struct Codec<cudaStream_t> {
  /// Writes nothing.
  static void put(Writer&, cudaStream_t) {}
  /// The runner's own stream.
  static cudaStream_t get(Reader&) { return runner_stream(); }
};

/// Device pointers.
template <typename T>
struct Codec<T*, std::enable_if_t<!std::is_same_v<T*, cudaStream_t>>> {
  /// Writes @p pointer as a SharedPointer (or a null flag).
  static void put(Writer& out, T* pointer) {
    out.raw<std::uint8_t>(pointer != nullptr);
    if (pointer != nullptr) out.raw(share(pointer, out));
  }
  /// The pointer in this process, its allocation opened once.
  static T* get(Reader& in) {
    if (in.raw<std::uint8_t>() == 0) return nullptr;
    return static_cast<T*>(open_shared(in.raw<SharedPointer>()));
  }
};

/// Vectors of plain values (results such as a list of footprints).
template <typename T>
struct Codec<std::vector<T>> {
  /// The most elements a result may hold: a runner cannot make the grader allocate without bound.
  static constexpr std::uint64_t kMostElements = std::uint64_t{1} << 20;
  /// Writes the count, then each value.
  static void put(Writer& out, const std::vector<T>& values) {
    out.raw<std::uint64_t>(values.size());
    for (const T& value : values) Codec<T>::put(out, value);
  }
  /// Reads a vector; one longer than kMostElements throws.
  static std::vector<T> get(Reader& in) {
    const auto count = in.raw<std::uint64_t>();
    if (count > kMostElements) throw std::runtime_error("a returned list is too long");
    std::vector<T> values;
    values.reserve(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) values.push_back(Codec<T>::get(in));
    return values;
  }
};

/// Text (a kernel's name), as a count and bytes.
template <>
struct Codec<std::string> {
  /// The longest text that crosses: a kernel's mangled name is far shorter.
  static constexpr std::uint32_t kMostBytes = 1u << 16;
  /// Writes the length, then the bytes.
  static void put(Writer& out, const std::string& text) {
    out.raw(static_cast<std::uint32_t>(text.size()));
    out.append(text.data(), text.size());
  }
  /// Reads text; one longer than kMostBytes throws.
  static std::string get(Reader& in) {
    const auto size = in.raw<std::uint32_t>();
    if (size > kMostBytes) throw std::runtime_error("a returned text is too long");
    std::string text(size, '\0');
    in.take(text.data(), size);
    return text;
  }
};

/// One launch a call made (launch_watch.hpp).
template <>
struct Codec<KernelLaunch> {
  /// Writes the kernel's name, the dynamic shared memory, grid and block the launch asked for, its times, stream
  /// and correlation id.
  static void put(Writer& out, const KernelLaunch& launch) {
    Codec<std::string>::put(out, launch.kernel);
    out.raw(launch.dynamic_shared_bytes);
    for (std::uint32_t extent : launch.grid) out.raw(extent);
    for (std::uint32_t extent : launch.block) out.raw(extent);
    out.raw(launch.started_ms);
    out.raw(launch.ended_ms);
    out.raw(launch.stream_id);
    out.raw(launch.correlation);
  }
  /// Reads them.
  static KernelLaunch get(Reader& in) {
    KernelLaunch launch;
    launch.kernel = Codec<std::string>::get(in);
    launch.dynamic_shared_bytes = in.raw<std::uint32_t>();
    for (std::uint32_t& extent : launch.grid) extent = in.raw<std::uint32_t>();
    for (std::uint32_t& extent : launch.block) extent = in.raw<std::uint32_t>();
    launch.started_ms = in.raw<float>();
    launch.ended_ms = in.raw<float>();
    launch.stream_id = in.raw<std::uint32_t>();
    launch.correlation = in.raw<std::uint32_t>();
    return launch;
  }
};

/// The kernels a call launched (launch_watch.hpp): every reply to a call starts with them.
template <>
struct Codec<Launches> {
  /// Writes whether the runner watched, the counts, whether it launched after the hold, then each launch.
  static void put(Writer& out, const Launches& launches) {
    out.raw<std::uint8_t>(launches.watched ? 1 : 0);
    out.raw(launches.unnamed);
    out.raw(launches.from_other_threads);
    out.raw(launches.modules_loaded);
    out.raw<std::uint8_t>(launches.launched_after_hold ? 1 : 0);
    Codec<std::vector<KernelLaunch>>::put(out, launches.kernels);
  }
  /// Reads them.
  static Launches get(Reader& in) {
    Launches launches;
    launches.watched = in.raw<std::uint8_t>() != 0;
    launches.unnamed = in.raw<std::uint32_t>();
    launches.from_other_threads = in.raw<std::uint32_t>();
    launches.modules_loaded = in.raw<std::uint32_t>();
    launches.launched_after_hold = in.raw<std::uint8_t>() != 0;
    launches.kernels = Codec<std::vector<KernelLaunch>>::get(in);
    return launches;
  }
};

/// @name Aggregate reflection of an Api struct
/// @{
namespace detail {

struct AnyField {
  template <typename T>
  operator T() const;  // never defined: only used to count an aggregate's fields
};

template <typename T, typename... Args>
auto braces_construct(int) -> decltype(void(T{std::declval<Args>()...}), std::true_type{});
template <typename T, typename... Args>
std::false_type braces_construct(...);

template <typename T, typename... Fields>
constexpr std::size_t count_fields() {
  if constexpr (decltype(braces_construct<T, Fields..., AnyField>(0))::value) {
    return count_fields<T, Fields..., AnyField>();
  } else {
    return sizeof...(Fields);
  }
}

}  // namespace detail

/// The number of function pointers in @p Api.
template <typename Api>
constexpr std::size_t field_count() {
  constexpr std::size_t count = detail::count_fields<std::remove_const_t<Api>>();
  static_assert(count >= 1 && count <= 10, "an Api struct holds 1 to 10 function pointers");
  return count;
}

/// @p api's fields as a tuple of references, in declaration order.
template <typename Api>
auto fields(Api& api) {
  constexpr std::size_t n = field_count<Api>();
  // clang-format off
  if constexpr (n == 1) { auto& [a] = api; return std::tie(a); }
  else if constexpr (n == 2) { auto& [a, b] = api; return std::tie(a, b); }
  else if constexpr (n == 3) { auto& [a, b, c] = api; return std::tie(a, b, c); }
  else if constexpr (n == 4) { auto& [a, b, c, d] = api; return std::tie(a, b, c, d); }
  else if constexpr (n == 5) { auto& [a, b, c, d, e] = api; return std::tie(a, b, c, d, e); }
  else if constexpr (n == 6) { auto& [a, b, c, d, e, f] = api; return std::tie(a, b, c, d, e, f); }
  else if constexpr (n == 7) { auto& [a, b, c, d, e, f, g] = api; return std::tie(a, b, c, d, e, f, g); }
  else if constexpr (n == 8) { auto& [a, b, c, d, e, f, g, h] = api; return std::tie(a, b, c, d, e, f, g, h); }
  else if constexpr (n == 9) { auto& [a, b, c, d, e, f, g, h, i] = api; return std::tie(a, b, c, d, e, f, g, h, i); }
  else { auto& [a, b, c, d, e, f, g, h, i, j] = api; return std::tie(a, b, c, d, e, f, g, h, i, j); }
  // clang-format on
}

/// The type of @p Api's field number @p I (a function pointer type).
template <typename Api, std::size_t I>
using Field = std::remove_reference_t<std::tuple_element_t<I, decltype(fields(std::declval<Api&>()))>>;
/// @}

/// Grader side: sends a call of function number @p index with @p arguments to
/// @p side's runner and returns its result; throws RunnerError if the call
/// failed there (defined in remote.cpp).
std::vector<unsigned char> call(Side side, std::uint32_t index, const Writer& arguments);

/// Grader side: the kernels each call to @p side's runners launched, one entry
/// per call (of the lab's functions, not timed sequences), in the order made.
const std::vector<Launches>& launch_log(Side side);

/// A call that failed in a runner: a CUDA error or exception in the lab's
/// code, or the runner's end (a crash, a time limit).
class RunnerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

template <typename Api, Side S, std::size_t I, typename F = Field<Api, I>>
struct Stub;

template <typename Api, Side S, std::size_t I, typename R, typename... A>
struct Stub<Api, S, I, R (*)(A...)> {
  static R invoke(A... arguments) {
    Writer out;
    (Codec<std::decay_t<A>>::put(out, arguments), ...);
    const std::vector<unsigned char> reply = call(S, static_cast<std::uint32_t>(I), out);
    if constexpr (!std::is_void_v<R>) {
      Reader in(reply);
      return Codec<R>::get(in);
    }
  }
};

template <typename Api, Side S, std::size_t... I>
const Api& stub_table(std::index_sequence<I...>) {
  static const Api table{&Stub<Api, S, I>::invoke...};
  return table;
}

template <typename F>
struct Invoke;

template <typename R, typename... A>
struct Invoke<R (*)(A...)> {
  static void run(R (*function)(A...), Reader& in, Writer& out, const std::function<void()>& just_before) {
    // Braces evaluate left to right: arguments are read in the order they were written.
    std::tuple<std::decay_t<A>...> arguments{Codec<std::decay_t<A>>::get(in)...};
    if (just_before) just_before();
    if constexpr (std::is_void_v<R>) {
      std::apply(function, arguments);
    } else {
      Codec<R>::put(out, std::apply(function, arguments));
    }
  }
};

template <typename Api, std::size_t... I>
void dispatch(const Api& api, std::uint32_t index, Reader& in, Writer& out, const std::function<void()>& just_before,
              std::index_sequence<I...>) {
  const auto table = fields(api);
  const bool found =
      ((index == I ? (Invoke<Field<Api, I>>::run(std::get<I>(table), in, out, just_before), true) : false) || ...);
  if (!found) throw std::runtime_error("no function number " + std::to_string(index) + " in this lab");
}

}  // namespace detail

/// Grader side: @p Api whose functions run in @p side's runner.
template <typename Api, Side S>
const Api& stub_table() {
  static_assert(sizeof(Api) == field_count<Api>() * sizeof(void (*)()), "an Api struct holds only function pointers");
  return detail::stub_table<Api, S>(std::make_index_sequence<field_count<Api>()>{});
}

/// Runner side: calls function number @p index of @p api with the arguments in
/// @p in and writes its result to @p out; @p just_before runs once the
/// arguments are read (their buffers mapped), right before the function.
template <typename Api>
void dispatch(const Api& api, std::uint32_t index, Reader& in, Writer& out,
              const std::function<void()>& just_before = nullptr) {
  detail::dispatch(api, index, in, out, just_before, std::make_index_sequence<field_count<Api>()>{});
}

/// What a runner does before the next call it is sent, so that short kernels
/// are timed as they run untimed (lab 1's event checks).
struct Preamble {
  bool flush_l2 = false;     ///< flush L2 in the runner just before the call
  int hold_microseconds = 0; ///< hold the runner's stream this long, so the call's launches queue up first
  /// time each kernel the call launches between the runner's own events
  /// (launch_watch.hpp, time_each_launch()): KernelLaunch's started_ms and ended_ms
  bool time_each_launch = false;
  /// the order shake (remote.cu's call()), 0 for none: the order in which the runner's stream,
  /// the legacy default stream and the streams the build made are held before the lab function
  /// runs, each for a different time, is drawn from it (shake_streams())
  std::uint32_t shake_seed = 0;
  bool shake_reversed = false;  ///< hold them in the reverse of that order
  /// with the shake: hold a stream after each event recorded on it (hold_after_event_record())
  bool hold_after_records = false;
  /// nothing to do before the call: the student's untimed calls are then shaken
  bool empty() const { return !flush_l2 && hold_microseconds == 0 && !time_each_launch && shake_seed == 0; }
};
/// Grader side: @p preamble applies to the next call only.
void before_next_call(const Preamble& preamble);

/// What time_calls_in_runner() measured in a runner.
struct RunnerTimes {
  std::vector<double> ms;         ///< per call
  bool all_queued_first = false;  ///< every call returned before the first ran (meaningful behind a hold)
  /// What each call launched, as the runner's watch saw it; with the kernels' times where the
  /// preamble asked for them (Preamble::time_each_launch), read once after the last call.
  std::vector<Launches> calls;
};

/// Grader side: times @p count calls of function @p index with @p arguments,
/// back to back on the runner's stream, each between its own pair of CUDA
/// events. Used where launches of a few microseconds must be told apart, which
/// the grader's clock cannot do. In the student's runner the lab's code could
/// answer in the runner's place: times from Side::student are the student's
/// word, for failing a student's figures that disagree with them, never for a
/// time or a grade of their own.
RunnerTimes time_calls_in_runner(Side side, std::uint32_t index, const Writer& arguments, int count);

namespace detail {
template <typename F>
struct Encode;
template <typename R, typename... A>
struct Encode<R (*)(A...)> {
  template <typename... Given>
  static void put(Writer& out, Given&&... given) {
    static_assert(sizeof...(Given) == sizeof...(A), "give every argument of the function");
    (Codec<std::decay_t<A>>::put(out, static_cast<std::decay_t<A>>(given)), ...);
  }
};
}  // namespace detail

/// Grader side: time_calls_in_runner() for the function in @p member of @p Api,
/// with @p arguments as it takes them: `time_in_runner<lab1::Api>(Side::student,
/// &lab1::Api::vector_add, 5, a, b, c, n, stream)`.
template <typename Api, typename F, typename... Arguments>
RunnerTimes time_in_runner(Side side, F Api::*member, int count, Arguments&&... arguments) {
  const Api probe{};
  const auto index = static_cast<std::uint32_t>(
      (reinterpret_cast<const char*>(&(probe.*member)) - reinterpret_cast<const char*>(&probe)) / sizeof(F));
  Writer out;
  detail::Encode<F>::put(out, std::forward<Arguments>(arguments)...);
  return time_calls_in_runner(side, index, out, count);
}

/// Grader side: the grader's own clock over remote calls. Between start() and
/// stop_ms(), each call's time is added up: from continuing the stopped runner
/// and sending the call until, after its answer, the GPU is seen idle from the
/// grader's own context (so work on any stream or context counts, and an early
/// answer gains nothing), less the base: the same for an empty kernel in the
/// base runner, measured just before. Before every timed call the GPU
/// is checked idle. Nothing the runner says about time is used.
class RemoteClock : public OutsideClock {
 public:
  /// Starts adding up.
  void start() override;
  /// Milliseconds the calls since start() took, or a negative number if none was made.
  double stop_ms() override;
  /// Used by call(): adds one call's milliseconds by the grader's clock, base taken off.
  void add(double milliseconds);
  /// True between start() and stop_ms().
  bool running() const { return running_; }

 private:
  bool running_ = false;
  int calls_ = 0;
  double milliseconds_ = 0.0;
};

/// The one clock, used by the grader's timer.
RemoteClock& remote_clock();

/// How to start runners, set by the grading main.
struct RunnerSetup {
  std::string program;              ///< the lab's runner executable
  std::string student_library;      ///< the student's build
  std::string reference_library;    ///< the reference build
  std::vector<std::string> prefix;  ///< a command the student's runner is started under (the sandbox), may be empty
  double call_seconds = 60.0;       ///< a call that takes longer ends its runner
  int runner_cpu = -1;              ///< the CPU both runners are kept on (set by set_up_runners), -1 for any
  /// Whole fatbins, one after another: the only GPU code the student's build may
  /// register in its runner (registered_code.hpp); "" for any.
  std::string allowed_code;
};
/// Grader side: sets how runners start; they start at the first call.
void set_up_runners(const RunnerSetup& setup);
/// Grader side: starts @p side's runner now if it is not running (the base
/// runner measures the base); throws RunnerError if it cannot be started.
void start_runner(Side side);
/// Grader side: what a timed call of an empty kernel to the base runner
/// (Side::base) takes, in milliseconds (median of the recent ones; 0 before it
/// starts): taken off every timed call of either side.
double base_ms();
/// Grader side: ends both runners (waiting for them), e.g. at the end of grading.
void stop_runners();
/// Grader side: ends @p side's runner now (its GPU work dies with it); the next call starts a new one.
void kill_runner(Side side);

/// Trouble a runner had: the grader records the first as the row's trouble.
struct Trouble {
  std::string kind;     ///< "crashed", "timed_out", "context_lost"
  std::string message;  ///< for people
};
/// Grader side: called for each trouble of the student's runner.
void on_student_trouble(void (*handler)(const Trouble&));

/// Runner side: how @p handler is to make a call.
struct CallOptions {
  bool time_each_launch = false;  ///< Preamble::time_each_launch
  /// Where the call was held (Preamble::hold_microseconds): when the hold was
  /// over, by steady_now_ns(), once the GPU got past it (0 until then). A
  /// first launch after it waited for the stream first.
  const std::atomic<std::int64_t>* hold_over_ns = nullptr;
  std::uint32_t shake_seed = 0;  ///< Preamble::shake_seed
  bool shake_reversed = false;   ///< Preamble::shake_reversed
  bool hold_after_records = false;  ///< Preamble::hold_after_records
};
/// Runner side: the order shake (CallOptions::shake_seed), enqueued just
/// before a lab function runs. The runner's stream, the legacy default stream
/// and the streams the build made itself (@p made, streams_made_beside()) each
/// wait a different time, from kShakeShortestUs to kShakeLongestUs, in an order
/// drawn from the seed for each stream alone (so a stream made later does not
/// reorder the others), or its reverse.
void shake_streams(const CallOptions& options, const std::vector<cudaStream_t>& made);
/// Runner side, during a shaken call: holds @p stream for kShakeLongestUs
/// right after an event recorded on it (launch_watch.hpp,
/// hold_after_event_records()), longer than any stream's shake, so that work
/// waiting for the event on another stream runs before what follows the
/// event on its own. Called from the launch watch's callback, so it launches
/// through the driver; shake_streams() readies it first.
void hold_after_event_record(CUstream_st* stream);
/// The order shake's shortest hold, in microseconds.
inline constexpr int kShakeShortestUs = 20;
/// The order shake's longest hold, in microseconds.
inline constexpr int kShakeLongestUs = 500;
/// Runner side: what serve() does with each call.
struct Handlers {
  /// calls function @p index of @p api with the arguments in @p in, its result to @p out
  void (*call)(const void* api, std::uint32_t index, const CallOptions& options, Reader& in, Writer& out) = nullptr;
  /// before the preamble's flush and hold of a call (nullptr: nothing)
  void (*prepare)(const CallOptions& options) = nullptr;
  /// before a sequence of timed calls whose launches are to be timed (launch_watch.hpp's
  /// time_launches_of_calls(); nullptr: they are not)
  void (*time_calls)() = nullptr;
  /// after them: their launches' times (launch_watch.hpp's read_launch_times())
  void (*read_times)(std::vector<Launches>& calls) = nullptr;
};
/// Runner side: serves calls on @p socket until it closes.
int serve(int socket, const Handlers& handlers, const void* api);

}  // namespace memlab::grading::remote
