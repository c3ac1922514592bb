#include "memlab/grading/grader.hpp"

#include "memlab/cuda_check.cuh"
#include "memlab/grading/context.hpp"
#include "memlab/grading/remote.hpp"
#include "memlab/text.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>

namespace memlab::grading {

namespace {
Context* installed = nullptr;

Context& context() {
  if (installed == nullptr) throw std::logic_error("grading: no context installed (no GPU set up)");
  return *installed;
}
}  // namespace

CheckRecorder& recorder() {
  static CheckRecorder instance;
  return instance;
}

void install(Context* context) { installed = context; }

void hint(const std::string& text) { recorder().current().hint = text; }

void measured(const std::string& student, const std::string& reference,
              std::optional<double> ratio) {
  CheckResult& row = recorder().current();
  row.measured = student;
  row.reference = reference;
  row.ratio = ratio;
}

void unscored() { recorder().current().ratio.reset(); }

void note(const std::string& text) { recorder().current().note = text; }

void value(const std::string& name, double number) {
  recorder().current().values.emplace_back(name, number);
}

void require_step(int step) {
  if (recorder().step_passed(step)) return;
  recorder().block(step);
  throw StepBlocked(step);
}

const DeviceFacts& device() { return context().facts; }
const MeasuredCeilings& ceilings() { return context().ceilings; }
cudaStream_t stream() { return *context().stream; }
KernelTimer& timer() { return *context().timer; }
std::string output_path(const std::string& file_name) {
  return context().output_dir + "/" + file_name;
}
std::uint64_t seed() { return context().seed; }

bool has_room_for(std::size_t bytes) {
  const std::size_t wanted = bytes + bytes / 8;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  MEMLAB_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Where the whole GPU is too small, no runner ended makes room.
  if (free_bytes < wanted && total_bytes >= wanted) {
    // A killed process's GPU memory comes back a little after it is gone.
    remote::kill_runner(remote::Side::student);
    for (int wait = 0; wait < 60 && free_bytes < wanted; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      MEMLAB_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    }
  }
  return free_bytes >= wanted;
}

std::string no_room_for(const std::string& check, std::size_t bytes) {
  if (has_room_for(bytes)) return "";
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  MEMLAB_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return format_text("%s not checked: it needs %s of GPU memory, %s is free", check.c_str(),
                     format_bytes(static_cast<double>(bytes)).c_str(),
                     format_bytes(static_cast<double>(free_bytes)).c_str());
}

namespace {

// A build's kernels as this GPU runs them; or why they could not be read.
struct BuildKernels {
  std::vector<KernelCode> kernels;
  std::string unreadable;  // "" when read
  std::string read_as;     // "its sm_90 machine code"
};

// @p library's kernels; with @p compared_with, a build compiled the same way
// whose count of code files it must match (read_kernels).
BuildKernels read_build(const std::string& library, const std::string& compared_with) {
  BuildKernels read;
  const int capability = context().facts.major * 10 + context().facts.minor;
  try {
    const BuildCode build =
        read_kernels({MEMLAB_CUOBJDUMP, MEMLAB_NVDISASM_DIR, MEMLAB_PTXAS}, library, capability, compared_with);
    read.kernels = build.kernels;
    read.read_as = format_text("read from %s for this GPU (compute capability %d.%d) with cuobjdump",
                               build.description().c_str(), capability / 10, capability % 10);
  } catch (const MachineCodeUnreadable& error) {
    read.unreadable = error.what();
  }
  return read;
}

// The student's kernels, read once. grade.py keeps nvcc's own code for the
// file, which bytes placed in the library cannot stand in for (red team 13);
// make labN reads the library, whose code files it counts against the
// reference's, built the same way.
const BuildKernels& student_code() {
  static const BuildKernels code = [] {
    const bool kept = !context().student_code.empty();
    return read_build(kept ? context().student_code : context().student_library,
                      kept ? std::string() : context().reference_library);
  }();
  return code;
}

// The shared memory the GPU reserves in every block, whatever the kernel (1 KB
// from sm_80 on): the least static shared memory of the reference build's
// kernels, one of which holds no __shared__ array. Empty where it cannot be read.
std::optional<std::uint32_t> shared_reserved_per_block() {
  static const std::optional<std::uint32_t> reserved = []() -> std::optional<std::uint32_t> {
    const BuildKernels reference = read_build(context().reference_library, "");
    if (!reference.unreadable.empty() || reference.kernels.empty()) return std::nullopt;
    return std::min_element(reference.kernels.begin(), reference.kernels.end(),
                            [](const KernelCode& a, const KernelCode& b) {
                              return a.static_shared_bytes < b.static_shared_bytes;
                            })->static_shared_bytes;
  }();
  return reserved;
}

// "" and a note, or the failure, for a build whose code could not be read.
std::string unread(const std::string& property) {
  const BuildKernels& code = student_code();
  if (context().require_machine_code) {
    return "the grader could not read your build's machine code to see whether a kernel " + property + ": " +
           code.unreadable;
  }
  CheckResult& row = recorder().current();
  row.note += (row.note.empty() ? "" : "\n") + std::string("Not checked: whether a kernel of your build ") + property +
              " (" + code.unreadable + ").";
  return "";
}

}  // namespace

std::string method_missing(bool (*has)(const KernelCode&), const std::string& property, const std::string& failure) {
  const BuildKernels& code = student_code();
  if (!code.unreadable.empty()) return unread(property);
  if (std::any_of(code.kernels.begin(), code.kernels.end(), has)) return "";
  return format_text("%s: no kernel of your build %s (%zu kernels, %s)", failure.c_str(), property.c_str(),
                     code.kernels.size(), code.read_as.c_str());
}

std::string method_broken(bool (*has)(const KernelCode&), const std::string& property, const std::string& failure) {
  const BuildKernels& code = student_code();
  if (!code.unreadable.empty()) return unread(property);
  std::string offenders;
  for (const KernelCode& kernel : code.kernels) {
    if (has(kernel)) offenders += (offenders.empty() ? "" : "; ") + readable_name(kernel.name);
  }
  if (offenders.empty()) return "";
  return format_text("%s: %s %s (%s)", failure.c_str(), offenders.c_str(), property.c_str(), code.read_as.c_str());
}

StudentLaunches::StudentLaunches() : first_call_(remote::launch_log(remote::Side::student).size()) {}

Launches StudentLaunches::since() const {
  const std::vector<Launches> each = calls();
  Launches all;
  all.watched = !each.empty();
  for (const Launches& call : each) {
    all.watched = all.watched && call.watched;
    all.unnamed += call.unnamed;
    all.kernels.insert(all.kernels.end(), call.kernels.begin(), call.kernels.end());
  }
  return all;
}

std::vector<Launches> StudentLaunches::calls() const {
  const std::vector<Launches>& log = remote::launch_log(remote::Side::student);
  return std::vector<Launches>(log.begin() + static_cast<std::ptrdiff_t>(std::min(first_call_, log.size())), log.end());
}

namespace {

// The code of kernel @p name in the student's build (nullptr: not found there).
const KernelCode* code_of(const std::string& name) {
  const BuildKernels& code = student_code();
  const auto same = std::find_if(code.kernels.begin(), code.kernels.end(), [&name](const KernelCode& kernel) {
    return kernel.name == name || readable_name(kernel.name) == name;  // mangled, as CUPTI names it; or not
  });
  return same == code.kernels.end() ? nullptr : &*same;
}

// The distinct kernels of @p launched, each with its code in the student's build (nullptr: not found there).
std::vector<std::pair<std::string, const KernelCode*>> launched_code(const Launches& launched) {
  std::vector<std::pair<std::string, const KernelCode*>> kernels;
  for (const KernelLaunch& launch : launched.kernels) {
    const std::string& name = launch.kernel;
    const auto seen = [&name](const auto& kernel) { return kernel.first == name; };
    if (std::any_of(kernels.begin(), kernels.end(), seen)) continue;
    kernels.emplace_back(name, code_of(name));
  }
  return kernels;
}

// A launch that names no kernel hides which kernels ran, so the check cannot pass on it.
std::string graph_launched(const std::string& failure, const std::string& function) {
  return format_text("%s: your %s made or launched a CUDA graph (or a launch with no kernel name), whose "
                     "kernels the grader cannot name; launch the kernels directly", failure.c_str(), function.c_str());
}

std::string readable_names(const std::vector<std::pair<std::string, const KernelCode*>>& kernels) {
  std::string names;
  for (const auto& kernel : kernels) names += (names.empty() ? "" : "; ") + readable_name(kernel.first);
  return names;
}

}  // namespace

std::string launched_method_missing(const StudentLaunches& launches, const std::string& function,
                                    bool (*has)(const KernelCode&), const std::string& property,
                                    const std::string& failure) {
  const std::string whole_build = method_missing(has, property, failure);
  const Launches launched = launches.since();
  if (!whole_build.empty() || !launched.watched || !student_code().unreadable.empty()) return whole_build;
  if (launched.unnamed > 0) return graph_launched(failure, function);
  if (launched.kernels.empty()) return format_text("%s: your %s launched no kernel", failure.c_str(), function.c_str());
  // Call by call: the method kernel launched only where the call was not timed, or only at some
  // sizes, and other kernels doing the work elsewhere, is not the method (red team 28).
  for (const Launches& call : launches.calls()) {
    if (call.kernels.empty()) continue;
    const auto kernels = launched_code(call);
    if (std::any_of(kernels.begin(), kernels.end(), [has](const auto& kernel) { return kernel.second && has(*kernel.second); })) {
      continue;
    }
    return format_text("%s: a kernel of your build %s, but not one a call of your %s launched (%s; %s)",
                       failure.c_str(), property.c_str(), function.c_str(), readable_names(kernels).c_str(),
                       student_code().read_as.c_str());
  }
  return "";
}

std::string launched_method_broken(const StudentLaunches& launches, const std::string& function,
                                   bool (*has)(const KernelCode&), bool (*unwatched)(const KernelCode&),
                                   const std::string& property, const std::string& failure) {
  const Launches launched = launches.since();
  if (!launched.watched || !student_code().unreadable.empty()) return method_broken(unwatched, property, failure);
  if (launched.unnamed > 0) return graph_launched(failure, function);
  auto kernels = launched_code(launched);
  // A kernel that is not in the build's code was loaded at run time (red team 16): unread, it counts as having it.
  const bool unread_kernel = std::any_of(kernels.begin(), kernels.end(), [](const auto& kernel) { return !kernel.second; });
  kernels.erase(std::remove_if(kernels.begin(), kernels.end(),
                               [has](const auto& kernel) { return kernel.second && !has(*kernel.second); }),
                kernels.end());
  if (kernels.empty()) return "";
  return format_text("%s: your %s launched %s, which %s%s (%s)", failure.c_str(), function.c_str(),
                     readable_names(kernels).c_str(), property.c_str(),
                     unread_kernel ? " or is not code of your build (loaded at run time)" : "",
                     student_code().read_as.c_str());
}

SharedMemoryUse shared_memory_use(const StudentLaunches& launches, bool (*has)(const KernelCode&)) {
  const Launches launched = launches.since();
  SharedMemoryUse use;
  use.watched = launched.watched;
  if (!use.watched) return use;
  const bool readable = student_code().unreadable.empty();
  // Unknown where either build cannot be read: then no kernel's fixed arrays are counted.
  const std::uint32_t reserved = readable ? shared_reserved_per_block().value_or(UINT32_MAX) : UINT32_MAX;
  const auto staging_bytes = [&](const KernelLaunch& launch) -> std::uint32_t {
    const KernelCode* code = readable ? code_of(launch.kernel) : nullptr;
    if (readable && code == nullptr) return 0;  // code loaded at run time counts for nothing
    return !readable || has(*code) ? launch.dynamic_shared_bytes : 0;
  };
  bool first_call = true;
  for (const Launches& call : launches.calls()) {
    if (call.kernels.empty()) continue;
    std::uint32_t most_of_call = 0;
    for (const KernelLaunch& launch : call.kernels) most_of_call = std::max(most_of_call, staging_bytes(launch));
    use.least_dynamic_of_a_call = first_call ? most_of_call : std::min(use.least_dynamic_of_a_call, most_of_call);
    first_call = false;
  }
  for (const KernelLaunch& launch : launched.kernels) {
    const KernelCode* code = readable ? code_of(launch.kernel) : nullptr;
    if (readable && code == nullptr) continue;  // code loaded at run time counts for nothing
    // Fixed arrays are fixed however they are written: stores through a generic address are not
    // staging by has() (red team 24), so every launched kernel counts here.
    if (code == nullptr || code->static_shared_bytes <= reserved) continue;
    if (code->static_shared_bytes - reserved > use.most_static) {
      use.most_static = code->static_shared_bytes - reserved;
      use.most_static_kernel = readable_name(code->name);
    }
  }
  return use;
}

}  // namespace memlab::grading
