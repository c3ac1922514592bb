#include "memlab/report_json.hpp"

#include "memlab/files.hpp"

#include <nlohmann/json.hpp>

namespace memlab {

namespace {
// Keys in the order written, so the file reads as the report does.
using Json = nlohmann::ordered_json;

// null where there is nothing (a check not timed, no check running).
Json optional_value(const std::optional<double>& value) { return value ? Json(*value) : Json(nullptr); }
Json optional_text(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

Json check_json(const CheckResult& check) {
  Json values = Json::object();
  for (const auto& [name, value] : check.values) values[name] = value;
  return Json{{"step", check.step},       {"id", check.id},
              {"title", check.title},     {"verdict", to_string(check.verdict)},
              {"timed", check.timed},     {"measured", check.measured},
              {"reference", check.reference}, {"ratio", optional_value(check.ratio)},
              {"values", values},         {"detail", check.detail},
              {"hint", check.hint},       {"note", check.note},
              {"seconds", check.seconds}};
}
}  // namespace

void write_json(std::ostream& out, const LabReport& report) {
  Json json;
  json["lab"] = report.lab;
  json["title"] = report.title;
  json["steps"] = report.steps;
  json["steps_requested"] = report.steps_requested;
  json["steps_done"] = report.steps_done();
  json["step_verdicts"] = Json::array();
  for (int step = 1; step <= report.steps; ++step) json["step_verdicts"].push_back(to_string(report.step_verdict(step)));
  json["facts"] = Json::object();
  for (const auto& [name, value] : report.facts) json["facts"][name] = value;
  json["checks"] = Json::array();
  for (const CheckResult& check : report.checks) json["checks"].push_back(check_json(check));
  json["running"] = optional_text(report.running);
  json["complete"] = report.complete;
  json["gpu_trouble"] = report.gpu_trouble ? Json{{"kind", report.gpu_trouble->kind},
                                                  {"check", report.gpu_trouble->check},
                                                  {"message", report.gpu_trouble->message}}
                                           : Json(nullptr);
  // Text from a student's program or a compiler may hold invalid UTF-8: each bad
  // byte becomes U+FFFD rather than breaking the document. Non-finite numbers are null.
  out << json.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
}

void write_json_file(const std::string& path, const LabReport& report) {
  write_file_atomically(path, [&](std::ostream& out) { write_json(out, report); });
}

}  // namespace memlab
