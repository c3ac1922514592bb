/// @file grader.hpp
/// @brief What a lab's grader uses: the lab's description, the student's and
/// the reference's builds, the GPU, and the calls that fill in a report row.
///
/// A lab grader is one .cu file of Catch2 test cases, one per check (the
/// lab's name, title and steps come from its memlab_add_lab() call):
///
///     TEST_CASE("vector_add is correct for any n", "[step1][correct]") {
///       memlab::grading::hint("Cover every i < n: ...");
///       const auto& student = memlab::grading::student<lab1::Api>();
///       ...
///       memlab::grading::measured("7 sizes");
///     }
///
/// It is linked with the grading main (main.cpp), which starts a runner
/// process for each build (remote.hpp), runs the checks in order and prints
/// and writes the report. No code of the student's runs in the grader.
#pragma once

#include "memlab/by_gpu.hpp"
#include "memlab/device_facts.cuh"
#include "memlab/grading/machine_code.hpp"
#include "memlab/grading/remote.hpp"
#include "memlab/timing.cuh"
#include "memlab/verify.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

/// The machinery of the lab graders: the common main, the check recorder,
/// loading lab builds, speed comparisons, and cuBLAS as a yardstick. A lab's
/// grader.cpp uses it; a student's file never does.
namespace memlab::grading {

/// Describes a lab to the grading main.
struct LabInfo {
  const char* id;          ///< short name, e.g. "lab1"
  const char* title;       ///< e.g. "Caching observed with vector_add"
  int steps;               ///< number of steps
  const char* guide;       ///< the lab's README, relative to the repository
  const char* api_symbol;  ///< the table a lab build exports, e.g. "memlab_lab1_api"
};

/// The lab this grader checks: defined in a file that memlab_add_lab() makes
/// from the lab's CMakeLists.txt (cmake/Labs.cmake).
extern const LabInfo lab;

/// @name Filling in the running check's report row
/// @{

/// What to look at if this check fails; shown under the row.
void hint(const std::string& text);
/// What the check measured, as people read it, and the student/reference time ratio.
void measured(const std::string& student, const std::string& reference = "",
              std::optional<double> ratio = std::nullopt);
/// The running check's time ratio, already measured, earns no points: its
/// timed runs did the work another way than the step asks (before a FAIL).
void unscored();
/// A block of text shown below the report whatever the verdict, such as a table
/// of what the check measured.
void note(const std::string& text);
/// A named number for the JSON results (GB/s, milliseconds, counts).
void value(const std::string& name, double number);
/// Stops the running check as BLOCKED unless every check of @p step has passed:
/// later steps measure the code of earlier ones, so their results would mislead.
void require_step(int step);
/// @}

/// Thrown by require_step(); reported as BLOCKED rather than as a failure.
class StepBlocked : public std::runtime_error {
 public:
  /// @param step the step that has not passed
  explicit StepBlocked(int step)
      : std::runtime_error("step " + std::to_string(step) + " has not passed yet") {}
};

/// @name The machine
/// @{

/// Facts about the GPU the grader runs on.
const DeviceFacts& device();
/// Ceilings measured on it when the grader started.
const MeasuredCeilings& ceilings();
/// The stream every check runs on.
cudaStream_t stream();
/// A timer on that stream, with an L2 flush sized for this GPU.
KernelTimer& timer();
/// @p file_name inside the folder given by --output-dir (for CSV and plots).
std::string output_path(const std::string& file_name);
/// The seed for random inputs (--seed), so a run can be repeated exactly.
std::uint64_t seed();
/// The shape of the checks past 32-bit offsets: 65537 x 65537 is 2^32 + 131073
/// elements, so an offset r * cols + c (or c * rows + r) held in an int wraps
/// from row (column) 32768 on, and one held in an unsigned int in the last;
/// a sum along the other axis crosses them all.
inline constexpr MatrixShape kBeyond32Bits{by_gpu::kBeyond32BitsSide, by_gpu::kBeyond32BitsSide};
/// The tall shape of the same checks, 134217761 x 2 (by_gpu::kTallRows): a
/// grid of a block per row or per chunk of rows along y stops at 65535 blocks,
/// and a row numbered by warp from a 32-bit thread index wraps past 2^27 rows,
/// both far from 2^32 elements (red team 35).
inline constexpr MatrixShape kTall{by_gpu::kTallRows, 2};
/// True if @p bytes of GPU memory, and an eighth more, are free. Memory the
/// student's code holds must not decide it: when too little is free on a GPU
/// large enough, the student's runner is ended (the next call starts a new
/// one) and its memory awaited for up to 3 s.
bool has_room_for(std::size_t bytes);
/// "" if has_room_for(@p bytes), for @p check, a check of the headers' largest
/// promises (sizes past 2^31 elements); else what to say instead of its
/// result: "<check> not checked: it needs 19.4 GB of GPU memory, 12.0 GB is
/// free".
std::string no_room_for(const std::string& check, std::size_t bytes);
/// @}

/// @name The method, from the student's machine code
/// What neither results nor times show on every GPU, read from the code this
/// GPU runs for the student's build (machine_code.hpp). Where that code cannot
/// be read (no cuobjdump: `make labN` on a machine without it), a check passes
/// with a note saying so; with --require-machine-code (the instructors'
/// grader) it fails instead, so an unreadable build never passes unread (and
/// the reference's calibration names a missing tool before any student).
/// @{

/// Checks that some kernel of the student's build has a property.
/// @param has the property (uses_shared_memory, say)
/// @param property what it is, in words ("uses shared memory")
/// @param failure what the lab asks for that the build misses
/// @return "" when a kernel has it; else @p failure and what was read:
/// "...: no kernel of your build uses shared memory (4 kernels, read from ...)"
std::string method_missing(bool (*has)(const KernelCode&), const std::string& property, const std::string& failure);
/// Checks that no kernel of the student's build has a property.
/// @param has the property (computes_on_floats_in_double, say)
/// @param property what it is, in words ("computes on floats in double")
/// @param failure what the lab asks for that those kernels break
/// @return "" when none has it; else @p failure and the kernels that do
std::string method_broken(bool (*has)(const KernelCode&), const std::string& property, const std::string& failure);

/// The kernels the student's calls launch from the moment this is made, as
/// the student's runner watched them (launch_watch.hpp): which of the build's
/// kernels one function really launches.
class StudentLaunches {
 public:
  StudentLaunches();
  /// Every launch since, of every call; watched only if every call was.
  Launches since() const;
  /// The launches of each call since, one entry per call.
  std::vector<Launches> calls() const;

 private:
  std::size_t first_call_;
};

/// method_missing() for the kernels @p function launched since @p launches was
/// made: "" when every call that launched kernels launched one that has the
/// property (and some kernel of the build has it); a call that does the work
/// another way, in the timed runs say, fails it. Where the runner could not
/// watch, the whole build is read instead,
/// as method_missing() does; a call that launched a CUDA graph (its kernels
/// unnamed) fails it.
std::string launched_method_missing(const StudentLaunches& launches, const std::string& function,
                                    bool (*has)(const KernelCode&), const std::string& property,
                                    const std::string& failure);
/// method_broken() for the kernels @p function launched since @p launches was
/// made: "" when none of them has @p has. Where the runner could not watch, the
/// whole build is read instead, for @p unwatched (method_broken()); a call that
/// launched a CUDA graph (its kernels unnamed) fails it.
std::string launched_method_broken(const StudentLaunches& launches, const std::string& function,
                                   bool (*has)(const KernelCode&), bool (*unwatched)(const KernelCode&),
                                   const std::string& property, const std::string& failure);
/// The shared memory of the launches since a StudentLaunches was made, of
/// kernels of the build that have a property (shared_memory_use()).
struct SharedMemoryUse {
  bool watched = false;  ///< the runner watched every call's launches; if not, nothing below is known
  /// Call by call, the most dynamic shared memory (the launch's third
  /// parameter, in bytes) one of the call's launches asked for; of those, the
  /// least over the calls that launched kernels. Every launch counts where the
  /// build's code could not be read (0 where the runner could not watch).
  std::uint32_t least_dynamic_of_a_call = 0;
  /// The most static shared memory (fixed `__shared__` arrays) a launched
  /// kernel of the build holds, whether it has the property or not, beyond
  /// what the GPU reserves in every block, which is read from the reference
  /// build (its least); 0 where either build could not be read.
  std::uint32_t most_static = 0;
  std::string most_static_kernel;  ///< the kernel that holds most_static, as people read its name
};
/// What the kernels launched since @p launches was made asked for (those with
/// @p has) and held (all) in shared memory. A kernel not in the build's code
/// (loaded at run time) counts for nothing.
SharedMemoryUse shared_memory_use(const StudentLaunches& launches, bool (*has)(const KernelCode&));
/// @}

/// @name The two builds of the lab
/// Each runs in a process of its own (remote.hpp); these tables call into them.
/// Pointers given to their functions must be device memory of the grader's.
/// @{

/// The student's functions, as the lab's Api struct.
template <typename Api>
const Api& student() {
  return remote::stub_table<Api, remote::Side::student>();
}
/// The reference solution's functions, as the lab's Api struct.
template <typename Api>
const Api& reference() {
  return remote::stub_table<Api, remote::Side::reference>();
}
/// @}

}  // namespace memlab::grading
