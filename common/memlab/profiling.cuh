/// @file profiling.cuh
/// @brief What a lab's profile program (`make labN-profile`) and sanitize
/// program (`make labN-sanitize`) are made of.
///
/// scripts/profile.sh runs the program under Nsight Compute; the program runs
/// the student's functions and writes a plan (columns, groups, notes) that
/// scripts/ncu_table.py turns into tables once ncu has finished.
///
/// How many kernels one of the student's functions launches is the student's
/// choice, so the table cannot count them: the program launches an empty marker
/// kernel before each group, and ncu_table.py starts a new group at each marker.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace memlab {

/// Enqueues the marker kernel (named memlab_profile_marker) on @p stream: the
/// kernels after it, up to the next marker, form one group of the profile's
/// table. Throws CudaError.
void mark_profile_group(cudaStream_t stream);

/// One column of the profile's tables: a counter, or the ratio of two.
struct ProfileColumn {
  /// A column showing @p counter, or counter / @p divided_by when that is given.
  ProfileColumn(std::string counter, std::string heading, std::string divided_by = "")
      : metric(std::move(counter)), title(std::move(heading)), denominator(std::move(divided_by)) {}
  std::string metric;       ///< Nsight Compute metric, e.g. "dram__bytes_read.sum"
  std::string title;        ///< column heading
  std::string denominator;  ///< if set, the column shows metric / denominator
};

/// The main of a lab's profile program. Command line:
/// - `--metrics`: print the metrics to collect (comma-separated) and exit;
/// - `--gpu`: exit 0 if a GPU can be used here, else print why not and exit 77;
/// - `--student LIB --plan FILE`: load the build LIB and run @p body, writing the plan to FILE.
/// Writes the plan's columns, then calls @p body with the student's function
/// table (exported as @p api_symbol) and the plan, to which body writes the
/// title, groups and notes. Returns the exit code: 0, 1 (an error, printed),
/// 2 (bad usage) or 77 (no GPU).
int run_profile_program(int argc, char** argv, const std::string& api_symbol,
                        const std::vector<ProfileColumn>& columns,
                        const std::function<void(const void* api, std::ostream& plan)>& body);

/// A second build of the lab's file with other compiler flags, which a
/// profile program runs beside the usual one (memlab_add_lab's PROFILE_VARIANT,
/// whose CMake code defines MEMLAB_PROFILE_VARIANT and MEMLAB_PROFILE_VARIANT_FLAGS
/// for the profile program).
struct ProfileVariant {
  std::string name;   ///< the build's suffix: lib\<lab\>_student_\<name\>.so beside lib\<lab\>_student.so
  std::string flags;  ///< the extra nvcc flags, as the plan's text names them
};

/// run_profile_program for a lab with a variant build: as above, and @p body
/// also gets the function table of the same build compiled with the variant's
/// flags, loaded from beside the build given with `--student`
/// (grading::variant_library names it).
int run_profile_program(int argc, char** argv, const std::string& api_symbol,
                        const std::vector<ProfileColumn>& columns, const ProfileVariant& variant,
                        const std::function<void(const void* api, const void* variant_api, std::ostream& plan)>& body);

/// The main of a lab's sanitize program, which scripts/sanitize.sh runs under
/// compute-sanitizer racecheck: `--student LIB` loads the build LIB and calls
/// @p body with its function table; body runs the lab's shared-memory kernels
/// once each on small, awkward sizes; `--gpu` exits 0 if a GPU can be used
/// here, else says why not and exits 77. Returns the exit code: 0, 1 (an error,
/// printed), 2 (bad usage) or 77 (no GPU).
int run_sanitize_program(int argc, char** argv, const std::string& api_symbol,
                         const std::function<void(const void* api)>& body);

}  // namespace memlab
