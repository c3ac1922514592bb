// The main of every lab grader: options, the GPU check, starting a runner
// process for each build (remote.hpp), running the checks in order with a
// progress line each, and the report. The student's code runs only in its
// runner; everything this program reports it observed itself.
//
// Exit codes: 0 every check asked for passed; 1 some check failed; 2 bad
// command line; 3 the GPU or the reference failed before any check ran; 4 the
// grader's own GPU context became unusable; 5 the student's build could not be
// loaded or started in its runner; 77 no usable GPU (CTest reads 77 as "skipped").

#define MEMLAB_CATCH2_MAIN
#include "memlab/grading/catch2.hpp"
#include "memlab/grading/cgroup.hpp"
#include "memlab/grading/context.hpp"
#include "memlab/grading/grader.hpp"
#include "memlab/grading/phases.hpp"
#include "memlab/grading/remote.hpp"
#include "memlab/grading/shareable.hpp"
#include "memlab/grading/speed.hpp"
#include "memlab/files.hpp"
#include "memlab/report.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <vector>

namespace {

using namespace memlab;
using namespace memlab::grading;

constexpr int kAllPassed = 0;
constexpr int kChecksFailed = 1;
constexpr int kBadInput = 2;
constexpr int kGpuFailed = 3;
constexpr int kGpuLost = 4;
constexpr int kStudentUnusable = 5;
constexpr int kNoGpu = 77;

// The report so far; written to --results (and --report) when each check
// starts and ends, so a crash or a kill loses nothing already measured and
// the file names the check that was running.
LabReport report;
std::string results_path;
std::string report_path;

void save_results() {
  report.checks = recorder().results();
  if (!results_path.empty()) write_json_file(results_path, report);
  if (!report_path.empty()) write_report_file(report_path, report);
}

// Device memory free when the checks began; a check after which less than a
// tenth of it is free has left the student's allocations behind.
std::size_t free_at_start = 0;

// Trouble of the student's runner (a crash, a time limit, a lost context, work
// left running): the first is the row's trouble, named after the running check.
void record_student_trouble(const remote::Trouble& trouble) {
  if (report.gpu_trouble) return;
  const std::string check = recorder().running() ? recorder().current().id : "start-up";
  report.gpu_trouble = GpuTrouble{trouble.kind, check, trouble.message};
}

// After each check: is the GPU still usable, and is its memory still there?
void look_at_gpu_after(const std::string& check) {
  const GpuHealth health = probe_gpu_health();
  if (!health.lost_context.empty()) {
    report.gpu_trouble = GpuTrouble{"context_lost", check, health.lost_context};
    save_results();
    std::cout << "\nThe GPU context is lost after " << check << ": " << health.lost_context
              << ".\nEvery later CUDA call in this process would fail with the same error, so the "
                 "checks stop here.\nLook for a kernel that reads or writes outside its buffers "
                 "(make " << lab.id << "-sanitize finds races; compute-sanitizer finds bad addresses).\n"
              << std::flush;
    // The context cannot be recovered in this process: end it, with the results saved.
    remote::stop_runners();
    std::_Exit(kGpuLost);
  }
  if (!report.gpu_trouble && health.free_bytes < free_at_start / 10) {
    report.gpu_trouble = GpuTrouble{
        "memory_exhausted", check,
        format_text("after this check only %s of the GPU's memory was free (%s when the checks began): "
                    "the student's code keeps the rest allocated",
                    format_bytes(static_cast<double>(health.free_bytes)).c_str(),
                    format_bytes(static_cast<double>(free_at_start)).c_str())};
  }
}

bool stdout_is_terminal() { return isatty(STDOUT_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr; }

// Prints a line per check as it starts and ends, and feeds the recorder.
class ProgressListener : public catch2::ListenerBase {
 public:
  using catch2::ListenerBase::ListenerBase;

  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    catch2::ListenerBase::testCaseStarting(info);
    recorder().begin(info.name, catch2::tags_of(info));
    report.running = recorder().current().id;
    save_results();
    started_ = std::chrono::steady_clock::now();
    std::cout << "  step " << recorder().current().step << "  " << info.name << " ... " << std::flush;
  }

#if MEMLAB_CATCH2_MAJOR >= 3
  void assertionEnded(const Catch::AssertionStats& stats) override { record(stats); }
#else
  bool assertionEnded(const Catch::AssertionStats& stats) override {
    record(stats);
    return true;
  }
#endif

  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    recorder().end(stats.totals.assertions.failed == 0, seconds);
    const Verdict verdict = recorder().results().back().verdict;
    std::cout << (verdict == Verdict::pass ? "pass" : to_string(verdict)) << format_text(" (%.1f s)\n", seconds);
    report.running.clear();
    look_at_gpu_after(recorder().results().back().id);
    save_results();
    catch2::ListenerBase::testCaseEnded(stats);
  }

 private:
  static void record(const Catch::AssertionStats& stats) {
    if (!stats.assertionResult.isOk()) recorder().assertion_failed(catch2::failure_text(stats));
  }
  std::chrono::steady_clock::time_point started_;
};

// The reference build and the runner sit beside the grader executable, so a build folder can move.
std::string beside_this_program(const std::string& name) {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? name : (self.parent_path() / name).string();
}

// The command runners start under (the sandbox): one word per line of @p path.
std::vector<std::string> read_words(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> words;
  for (std::string line; std::getline(file, line);) {
    if (!line.empty()) words.push_back(line);
  }
  return words;
}

std::string format_gbps(double gbps) { return format_text("%.0f GB/s", gbps); }

std::vector<std::pair<std::string, std::string>> describe_machine(const Context& context,
                                                                  const std::string& student) {
  const DeviceFacts& f = context.facts;
  const MeasuredCeilings& c = context.ceilings;
  const std::string memory = format_text(
                "peak %s measured, by %s (%.0f%% of the %s the memory clock and bus width allow; "
                "a copy kernel %s, cudaMemcpy %s, a read-only kernel %s)",
                format_gbps(c.peak_gbps()).c_str(), c.peak_source(),
                f.theoretical_gbps > 0 ? 100.0 * c.peak_gbps() / f.theoretical_gbps : 0.0,
                format_gbps(f.theoretical_gbps).c_str(), format_gbps(c.copy_gbps).c_str(),
                format_gbps(c.memcpy_gbps).c_str(), format_gbps(c.read_gbps).c_str());
  const std::string launch =
      format_text("%.1f us for an empty kernel between two events", context.ceilings.launch_overhead_us);
  const std::string versions = format_text("driver %d.%d, runtime %d.%d", f.driver_version / 1000,
                                           f.driver_version % 1000 / 10, f.runtime_version / 1000,
                                           f.runtime_version % 1000 / 10);
  return {{"GPU", f.summary()},
          {"Bandwidth", memory},
          {"Launch overhead", launch},
          {"CUDA", versions},
          {"Student build", student},
          {"Runners held by", Cgroup::why_unusable().empty()
                                  ? "the kernel: a cgroup per runner, frozen between calls"
                                  : "signals only (" + Cgroup::why_unusable() + "); see grader/README.md"},
          {"Seed", std::to_string(context.seed)}};
}

}  // namespace

CATCH_REGISTER_LISTENER(ProgressListener)

int main(int argc, char** argv) {
  trace_time_before_main();
  Catch::Session session;
  std::string student_path;
  std::string reference_path = beside_this_program(std::string("lib") + lab.id + "_reference.so");
  std::string runner_path = beside_this_program(std::string(lab.id) + "_runner");
  std::string sandbox_path;
  std::string student_code_path;
  std::vector<std::string> allowed_code_paths;
  double call_seconds = 60.0;
  std::string output_dir = ".";
  int steps = lab.steps;
  unsigned long long seed = 20261122;
  bool contract = false;
  bool require_machine_code = false;

  using catch2::clara::Opt;
  session.cli(session.cli() |
              Opt(student_path, "lib.so")["--student"]("the student's build of the lab (required)") |
              Opt(reference_path, "lib.so")["--reference"]("the reference build (default: beside this program)") |
              Opt(runner_path, "program")["--runner"]("the lab's runner (default: beside this program)") |
              Opt(sandbox_path, "file")["--sandbox"]("start the student's runner under this command, one word per line") |
              Opt(call_seconds, "seconds")["--call-timeout"]("longest a call of a lab function may take (default 60)") |
              Opt(steps, "N")["--steps"]("check steps 1..N only") |
              Opt(results_path, "file.json")["--results"]("write the results as JSON to this file") |
              Opt(report_path, "file.txt")["--report"]("write the report table as text to this file") |
              Opt(output_dir, "dir")["--output-dir"]("folder for data files and the detailed log") |
              Opt(seed, "number")["--seed"]("seed for the random inputs") |
              Opt(student_code_path, "file.fatbin")["--student-code"](
                  "nvcc's own device code for the student's file (-keep), read by the method checks instead of "
                  "the library's") |
              Opt(allowed_code_paths, "file.fatbin")["--allowed-code"](
                  "GPU code the student's build may register (nvcc's own for the file, the table's; one option "
                  "each): its runner refuses any other") |
              Opt(require_machine_code)["--require-machine-code"](
                  "fail the method checks of a build whose machine code cannot be read, rather than skip them") |
              Opt(contract)["--contract"]("print the exit codes and the pass limit as JSON, and stop"));
  if (session.applyCommandLine(argc, argv) != 0) return kBadInput;
  if (session.configData().showHelp) {
    std::cout << "\nExit codes: 0 all checks passed, 1 a check failed, 2 bad command line,\n3 GPU or "
                 "reference error before the checks, 4 the grader's GPU context became unusable\n(results so "
                 "far saved), 5 the student's build could not be loaded, 77 no usable GPU.\n";
    return kAllPassed;
  }
  if (contract) {
    // What the instructors' grader relies on, written here only (grader.contract checks its copies).
    std::printf("{\"lab\": \"%s\", \"steps\": %d, \"speed_limit\": %g, \"exit_codes\": {\"all_passed\": %d, "
                "\"some_failed\": %d, \"bad_input\": %d, \"gpu_failed\": %d, \"gpu_lost\": %d, "
                "\"student_unloadable\": %d, \"no_gpu\": %d}}\n",
                lab.id, lab.steps, kSpeedLimit, kAllPassed, kChecksFailed, kBadInput, kGpuFailed, kGpuLost,
                kStudentUnusable, kNoGpu);
    return kAllPassed;
  }
  if (catch2::only_lists(session.configData())) return session.run();  // a listing needs no build and no GPU
  if (student_path.empty()) {
    std::cerr << lab.id << " grader: --student <the student's build> is required (see --help)\n";
    return kBadInput;
  }
  if (steps < 1 || steps > lab.steps) {
    std::cerr << lab.id << " grader: --steps must be between 1 and " << lab.steps << ", not "
              << steps << "\n";
    return kBadInput;
  }
  std::error_code dir_error;
  std::filesystem::create_directories(output_dir, dir_error);
  if (dir_error) {
    std::cerr << lab.id << " grader: cannot create " << output_dir << ": " << dir_error.message()
              << "\n";
    return kBadInput;
  }

  if (const auto why = [] {
        const Phase phase("gpu_probe");
        return why_no_gpu();
      }()) {
    std::cout << "\n" << lab.id << " is built, but grading it needs an NVIDIA GPU, and none can be used here:\n  "
              << *why
              << "\nRun the same command on a machine with an NVIDIA GPU and its driver.\n";
    return kNoGpu;
  }

  Context context;
  context.output_dir = output_dir;
  context.seed = seed;
  context.student_library = student_path;
  context.reference_library = reference_path;
  context.student_code = student_code_path;
  context.require_machine_code = require_machine_code;
  remote::RunnerSetup runners{runner_path, student_path, reference_path, {}, call_seconds, -1, {}};
  try {
    if (!sandbox_path.empty()) runners.prefix = read_words(sandbox_path);
  } catch (const std::exception& error) {
    std::cerr << lab.id << " grader: --sandbox: " << error.what() << "\n";
    return kBadInput;
  }
  for (const std::string& path : allowed_code_paths) {
    const std::string code = read_file(path);
    if (code.empty()) {
      std::cerr << lab.id << " grader: --allowed-code: cannot read " << path << "\n";
      return kBadInput;
    }
    runners.allowed_code += code;
  }
  remote::set_up_runners(runners);
  remote::on_student_trouble(record_student_trouble);
  use_outside_clock(&remote::remote_clock());
  try {
    const Phase phase("grader_start");
    shareable::install_shareable_memory();  // every buffer from here on can be mapped by the runners
    context.facts = query_device();
    context.stream = std::make_unique<Stream>();
    context.timer = std::make_unique<KernelTimer>(*context.stream, context.facts.l2_bytes);
    context.ceilings = measure_ceilings(context.facts, *context.stream);
    free_at_start = probe_gpu_health().free_bytes;
  } catch (const std::exception& error) {
    std::cerr << lab.id << " grader: the GPU failed before any check ran: " << error.what() << "\n";
    return kGpuFailed;
  }
  // Both runners start now, so a build that cannot be loaded is named before any check.
  for (const remote::Side side : {remote::Side::reference, remote::Side::student}) {
    try {
      remote::start_runner(side);
    } catch (const std::exception& error) {
      std::cerr << lab.id << " grader: " << remote::describe(side) << " could not be started: " << error.what()
                << (side == remote::Side::student
                        ? "\n(The runner's message is above. A function the lab asks for may be missing or renamed "
                          "in the student's file.)\n"
                        : "\n")
                << std::flush;
      remote::stop_runners();
      return side == remote::Side::student ? kStudentUnusable : kGpuFailed;
    }
  }
  install(&context);

  Catch::ConfigData& config = session.configData();
  // Steps build on each other, and the report's table is this program's own output.
  if (catch2::asks_for_another_order(config)) std::cout << "note: --order is ignored: the checks run step by step\n";
  const std::string log_path = output_dir + "/" + lab.id + "-checks.log";
  if (!catch2::output_asked_for(config).empty()) {
    std::cout << "note: -o/--out is ignored: Catch2's own output goes to " << log_path << " (see --output-dir)\n";
  }
  catch2::run_in_declaration_order(config);
  catch2::send_output_to(config, log_path);
  if (steps < lab.steps || config.testsOrTags.empty()) {
    std::string filter;
    for (int step = 1; step <= steps; ++step) filter += (step > 1 ? ",[step" : "[step") + std::to_string(step) + "]";
    config.testsOrTags = {filter};
  }

  report.lab = lab.id;
  report.title = lab.title;
  report.guide = lab.guide;
  report.steps = lab.steps;
  report.steps_requested = steps;
  report.facts = describe_machine(context, student_path);
  try {
    save_results();  // the file exists from the start, and is writable
  } catch (const std::exception& error) {
    std::cerr << lab.id << " grader: " << error.what() << "\n";
    return kBadInput;
  }

  std::cout << "Grading " << lab.id << " (" << lab.title << "), steps 1-" << steps << ":\n";
  {
    const Phase phase("checks");
    session.run();
  }
  install(nullptr);
  remote::stop_runners();

  report.complete = true;
  save_results();
  print_report(std::cout, report, {stdout_is_terminal(), 100});
  for (const CheckResult& check : report.checks) {
    if (check.verdict != Verdict::pass) return kChecksFailed;
  }
  return kAllPassed;
}
