/// @file report.hpp
/// @brief The per-step report every lab prints.
///
/// A lab is a sequence of steps; each step has one or more checks (is it
/// correct, is it fast enough). The console table is for the student; the same
/// results go to programs as JSON (report_json.hpp). The results themselves are
/// in verdicts.hpp, formatting helpers in text.hpp.
#pragma once

#include "memlab/report_json.hpp"
#include "memlab/text.hpp"
#include "memlab/verdicts.hpp"

#include <ostream>
#include <string>

namespace memlab {

/// Options for print_report().
struct PrintOptions {
  bool color = false;  ///< ANSI colours for verdicts (only for a terminal)
  int width = 100;     ///< wrap hints and details at this many columns
};

/// Writes the step table, the detail and hint of each failed check, and a
/// progress line ("[##--] 2 of 4 steps done").
void print_report(std::ostream& out, const LabReport& report, const PrintOptions& options = {});

/// Writes print_report()'s text (no colours) to @p path, atomically (write_file_atomically).
void write_report_file(const std::string& path, const LabReport& report);

}  // namespace memlab
