#include "memlab/report_json.hpp"

#include "memlab/files.hpp"
#include "memlab/json.hpp"

namespace memlab {

void write_json(std::ostream& out, const LabReport& report) {
  JsonWriter json(out);
  json.begin_object();
  json.field("lab", report.lab);
  json.field("title", report.title);
  json.field("steps", report.steps);
  json.field("steps_requested", report.steps_requested);
  json.field("steps_done", report.steps_done());
  json.key("step_verdicts");
  json.begin_array();
  for (int step = 1; step <= report.steps; ++step) json.value(to_string(report.step_verdict(step)));
  json.end_array();
  json.key("facts");
  json.begin_object();
  for (const auto& [name, value] : report.facts) json.field(name, value);
  json.end_object();
  json.key("checks");
  json.begin_array();
  for (const CheckResult& check : report.checks) {
    json.begin_object();
    json.field("step", check.step);
    json.field("id", check.id);
    json.field("title", check.title);
    json.field("verdict", to_string(check.verdict));
    json.field("timed", check.timed);
    json.field("measured", check.measured);
    json.field("reference", check.reference);
    json.key("ratio");
    if (check.ratio) {
      json.value(*check.ratio);
    } else {
      json.null();
    }
    json.key("values");
    json.begin_object();
    for (const auto& [name, value] : check.values) json.field(name, value);
    json.end_object();
    json.field("detail", check.detail);
    json.field("hint", check.hint);
    json.field("note", check.note);
    json.field("seconds", check.seconds);
    json.end_object();
  }
  json.end_array();
  json.key("running");
  if (report.running.empty()) {
    json.null();
  } else {
    json.value(report.running);
  }
  json.field("complete", report.complete);
  json.key("gpu_trouble");
  if (report.gpu_trouble) {
    json.begin_object();
    json.field("kind", report.gpu_trouble->kind);
    json.field("check", report.gpu_trouble->check);
    json.field("message", report.gpu_trouble->message);
    json.end_object();
  } else {
    json.null();
  }
  json.end_object();
  out << '\n';
}

void write_json_file(const std::string& path, const LabReport& report) {
  write_file_atomically(path, [&](std::ostream& out) { write_json(out, report); });
}

}  // namespace memlab
