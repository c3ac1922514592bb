#include "memlab/report.hpp"

#include "memlab/files.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace memlab {

namespace {

std::string format_ratio(const std::optional<double>& ratio) {
  return ratio ? format_text("%.2fx", *ratio) : "";
}

std::string verdict_label(Verdict verdict, bool color) {
  std::string label;
  const char* code = "";
  switch (verdict) {
    case Verdict::pass: label = "PASS"; code = "32"; break;
    case Verdict::fail: label = "FAIL"; code = "31"; break;
    case Verdict::blocked: label = "BLOCKED"; code = "33"; break;
    case Verdict::not_checked: label = "-"; code = "2"; break;
  }
  return color ? "\033[" + std::string(code) + "m" + label + "\033[0m" : label;
}

// Pads @p text to @p width visible characters; colour codes take no columns.
std::string pad(const std::string& text, std::size_t visible_length, std::size_t width) {
  return text + std::string(width > visible_length ? width - visible_length : 0, ' ');
}

// Writes @p text as lines of at most @p width columns, each starting with @p indent
// and the first with @p label; breaks at spaces and keeps the text's own newlines.
void write_wrapped(std::ostream& out, const std::string& indent, const std::string& label,
                   const std::string& text, int width) {
  const std::size_t room =
      std::max<std::size_t>(20, static_cast<std::size_t>(width) - indent.size() - label.size());
  std::istringstream paragraphs(text);
  std::string paragraph;
  bool first_line = true;
  while (std::getline(paragraphs, paragraph)) {
    std::istringstream words(paragraph);
    std::string word;
    std::string line;
    const auto flush = [&] {
      out << indent << (first_line ? label : std::string(label.size(), ' ')) << line << '\n';
      first_line = false;
      line.clear();
    };
    while (words >> word) {
      if (!line.empty() && line.size() + 1 + word.size() > room) flush();
      line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty() || paragraph.empty()) flush();
  }
}

}  // namespace

void print_report(std::ostream& out, const LabReport& report, const PrintOptions& options) {
  out << '\n' << report.lab << ": " << report.title << '\n';
  for (const auto& [name, value] : report.facts) out << "  " << name << ": " << value << '\n';
  out << '\n';

  struct Row {
    std::string step, title, verdict, measured, reference, ratio;
    Verdict raw = Verdict::not_checked;
    const CheckResult* check = nullptr;
  };
  std::vector<Row> rows;
  for (int step = 1; step <= report.steps; ++step) {
    bool any = false;
    for (const CheckResult& check : report.checks) {
      if (check.step != step) continue;
      any = true;
      rows.push_back({std::to_string(step), check.title, to_string(check.verdict), check.measured,
                      check.reference, format_ratio(check.ratio), check.verdict, &check});
    }
    if (!any) {
      const std::string why = step > report.steps_requested
                                  ? "not checked (STEP=" + std::to_string(report.steps_requested) + ")"
                                  : "not checked";
      rows.push_back({std::to_string(step), why, "-", "", "", "", Verdict::not_checked, nullptr});
    }
  }

  Row header{"Step", "Check", "Result", "Measured", "Reference", "Student/ref time"};
  std::size_t w_step = header.step.size(), w_title = header.title.size(),
              w_verdict = std::string("BLOCKED").size(), w_measured = header.measured.size(),
              w_reference = header.reference.size();
  for (const Row& row : rows) {
    w_step = std::max(w_step, row.step.size());
    w_title = std::max(w_title, row.title.size());
    w_measured = std::max(w_measured, row.measured.size());
    w_reference = std::max(w_reference, row.reference.size());
  }
  const auto write_row = [&](const Row& row, const std::string& verdict, std::size_t verdict_len) {
    out << pad(row.step, row.step.size(), w_step) << "  " << pad(row.title, row.title.size(), w_title)
        << "  " << pad(verdict, verdict_len, w_verdict) << "  "
        << pad(row.measured, row.measured.size(), w_measured) << "  "
        << pad(row.reference, row.reference.size(), w_reference) << "  " << row.ratio;
    out << '\n';
  };
  write_row(header, header.verdict, header.verdict.size());
  const std::string indent(w_step + 2, ' ');
  for (const Row& row : rows) {
    const std::string plain = verdict_label(row.raw, false);
    write_row(row, verdict_label(row.raw, options.color), plain.size());
    if (row.check == nullptr || row.raw == Verdict::pass) continue;
    if (!row.check->detail.empty()) {
      write_wrapped(out, indent, "what happened: ", row.check->detail, options.width);
    }
    if (!row.check->hint.empty() && row.raw == Verdict::fail) {
      write_wrapped(out, indent, "hint: ", row.check->hint, options.width);
    }
  }

  for (const CheckResult& check : report.checks) {
    if (!check.note.empty()) out << '\n' << check.note << (check.note.back() == '\n' ? "" : "\n");
  }

  const int done = report.steps_done();
  out << "\n[" << std::string(static_cast<std::size_t>(done), '#')
      << std::string(static_cast<std::size_t>(report.steps - done), '-') << "] " << done << " of "
      << report.steps << " steps done.";
  const int next = report.next_step();
  if (next == 0) {
    out << " Well done: every step passes.\n";
  } else {
    out << " Next: step " << next << " in " << report.guide << '\n';
  }
}

void write_report_file(const std::string& path, const LabReport& report) {
  write_file_atomically(path, [&](std::ostream& out) { print_report(out, report, {false, 100}); });
}

}  // namespace memlab
