/// @file context.hpp
/// @brief State shared by the grading main and the checks (internal to grading).
#pragma once

#include "memlab/device_facts.cuh"
#include "memlab/grading/check_recorder.hpp"
#include "memlab/resources.cuh"
#include "memlab/timing.cuh"

#include <cstdint>
#include <memory>
#include <string>

namespace memlab::grading {

/// Everything a check may ask for; set up by the grading main once a GPU is known to exist.
struct Context {
  DeviceFacts facts;                     ///< the GPU
  MeasuredCeilings ceilings;             ///< measured at start
  std::unique_ptr<Stream> stream;        ///< the stream checks run on
  std::unique_ptr<KernelTimer> timer;    ///< timer on that stream
  std::string output_dir = ".";          ///< where data files go
  std::uint64_t seed = 0;                ///< seed for random inputs
  std::string student_library;           ///< the student's build (--student), for its machine code
  /// A build of the reference compiled exactly as the student's (--code-baseline; default
  /// --reference): a student's build must hold as many code files as this one.
  std::string code_baseline;
  bool require_machine_code = false;     ///< --require-machine-code: an unreadable build fails its method checks
};

/// The recorder that turns test events into report rows (exists without a GPU).
CheckRecorder& recorder();
/// Installs @p context for the accessors in grader.hpp; the caller keeps it alive.
void install(Context* context);

}  // namespace memlab::grading
