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
  std::string reference_library;         ///< the reference build (--reference), built the same way
  /// nvcc's own device code for the student's file (--student-code, a .fatbin kept by the
  /// compile), read instead of the library's: "" reads the library (make labN's builds).
  std::string student_code;
  bool require_machine_code = false;     ///< --require-machine-code: an unreadable build fails its method checks
};

/// The recorder that turns test events into report rows (exists without a GPU).
CheckRecorder& recorder();
/// Installs @p context for the accessors in grader.hpp; the caller keeps it alive.
void install(Context* context);

}  // namespace memlab::grading
