/// @file verdicts.hpp
/// @brief What a lab run found: each check's verdict and measurements, and the
/// run as a whole. The grader fills it; report.hpp prints it, report_json.hpp
/// writes it for programs.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memlab {

/// What became of one check.
enum class Verdict {
  pass,        ///< every assertion held
  fail,        ///< an assertion failed or an exception escaped
  blocked,     ///< not attempted because a step it builds on has not passed
  not_checked  ///< outside the steps that were asked for (STEP=N)
};

/// "pass", "fail", "blocked" or "not checked".
const char* to_string(Verdict verdict);

/// One check's outcome, with what it measured.
struct CheckResult {
  int step = 0;                 ///< the lab step the check belongs to (1-based)
  std::string id;               ///< stable identifier, e.g. "step1.speed"
  std::string title;            ///< what the check promises, e.g. "vector_add is correct for any n"
  Verdict verdict = Verdict::not_checked;  ///< the outcome
  std::string measured;         ///< what the student's code did, for people ("3480 GB/s")
  std::string reference;        ///< what the reference did, for people
  std::optional<double> ratio;  ///< student time / reference time, where timed
  bool timed = false;           ///< its verdict rests on timings (tagged [timing]), not only on values
  bool speed_only = false;      ///< a speed comparison whose timed runs were all right: a failure is about speed
                                ///< alone, and never blocks the steps that build on this one
  std::vector<std::pair<std::string, double>> values;  ///< named numbers, for programs
  std::string detail;           ///< what failed (first mismatches, the exception)
  std::string hint;             ///< where to look, shown when the check fails
  std::string note;             ///< a block shown below the table whatever the verdict (a table of measurements)
  double seconds = 0.0;         ///< how long the check took
};

/// Something that went wrong with the GPU itself during a check, as opposed to
/// a wrong answer: the instructors' grader names it in the student's row.
struct GpuTrouble {
  std::string kind;     ///< "context_lost" (a sticky error such as an illegal address) or "memory_exhausted"
  std::string check;    ///< the check after which it was found
  std::string message;  ///< for people: the CUDA error, or how much memory was left
};

/// A lab run: the checks in the order they ran, and facts about the machine.
struct LabReport {
  std::string lab;             ///< short name, e.g. "lab1"
  std::string title;           ///< e.g. "Caching observed with vector_add"
  std::string guide;           ///< the lab's README, pointed to for the next step
  int steps = 0;               ///< number of steps in the lab
  int steps_requested = 0;     ///< steps 1..steps_requested were checked
  std::vector<std::pair<std::string, std::string>> facts;  ///< e.g. {"GPU", "NVIDIA H200"}
  std::vector<CheckResult> checks;  ///< the checks that ran, in order
  std::string running;         ///< id of the check in progress when written ("" between checks)
  bool complete = false;       ///< every requested check ran (false in a file left by a crash or a kill)
  std::optional<GpuTrouble> gpu_trouble;  ///< the first GPU trouble found after a check, if any

  /// The verdict of step @p step: pass if it had checks and all passed,
  /// not_checked if none ran, blocked if all that ran were blocked, else fail.
  Verdict step_verdict(int step) const;
  /// Number of steps whose verdict is pass.
  int steps_done() const;
  /// The first step that has not passed, or 0 when all have.
  int next_step() const;
};

}  // namespace memlab
