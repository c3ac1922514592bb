/// @file plugin.hpp
/// @brief Loading a lab build (a shared library) into the grader's process.
///
/// The student's file and the reference solution define the same functions.
/// Each is built as its own shared library and loaded with RTLD_LOCAL, so the
/// two sets of names never meet, while both run in one process: timings of
/// student and reference are taken on the same GPU in the same minute.
#pragma once

#include <string>

namespace memlab::grading {

/// A loaded shared library. It stays loaded until the process ends: unloading
/// a library with CUDA kernels while the runtime may still use them is unsafe,
/// and a grader loads only two.
class Plugin {
 public:
  /// Loads @p path; throws std::runtime_error with the loader's message
  /// (missing file, undefined symbol) if it cannot.
  explicit Plugin(const std::string& path);
  /// The address of the exported symbol @p name; throws std::runtime_error if absent.
  const void* symbol(const std::string& name) const;
  /// The path it was loaded from.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_ = nullptr;
};

/// The path of a lab build's variant (the same source compiled with other flags,
/// cmake/Labs.cmake's PROFILE_VARIANT) beside the build at @p library:
/// "build/liblab2_student.so" and "uncached" give "build/liblab2_student_uncached.so".
/// Throws std::invalid_argument if @p library does not end in ".so" or @p variant is empty.
std::string variant_library(const std::string& library, const std::string& variant);

}  // namespace memlab::grading
