/// @file report_json.hpp
/// @brief A lab run as JSON, for programs such as the instructors' grader,
/// which never parse the console output.
#pragma once

#include "memlab/verdicts.hpp"

#include <ostream>
#include <string>

namespace memlab {

/// Writes @p report as one JSON object.
void write_json(std::ostream& out, const LabReport& report);

/// Writes @p report as JSON to @p path atomically (write_file_atomically). Throws
/// std::runtime_error if the file cannot be written.
void write_json_file(const std::string& path, const LabReport& report);

}  // namespace memlab
