#include "memlab/grading/catch2.hpp"
#include "memlab/report.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace {

memlab::CheckResult check(int step, const std::string& id, memlab::Verdict verdict) {
  memlab::CheckResult c;
  c.step = step;
  c.id = id;
  c.title = "check " + id;
  c.verdict = verdict;
  return c;
}

memlab::LabReport sample_report() {
  memlab::LabReport r;
  r.lab = "lab1";
  r.title = "Caching observed with vector_add";
  r.guide = "labs/lab1_caching/README.md";
  r.steps = 4;
  r.steps_requested = 3;
  r.facts = {{"GPU", "Test GPU"}};
  r.checks = {check(1, "step1.correct", memlab::Verdict::pass),
              check(1, "step1.speed", memlab::Verdict::pass),
              check(2, "step2.timer", memlab::Verdict::fail),
              check(3, "step3.footprints", memlab::Verdict::blocked)};
  r.checks[1].measured = "3480 GB/s";
  r.checks[1].reference = "3500 GB/s";
  r.checks[1].ratio = 1.006;
  r.checks[1].timed = true;
  r.checks[1].values = {{"student_gbps", 3480.0}};
  r.checks[2].detail = "launch 5: 0.71 ms by your events, 0.14 ms by the grader's";
  r.checks[2].hint = "Record a start and a stop event around each launch.";
  r.checks[3].detail = "step 2 has not passed yet";
  return r;
}

}  // namespace

TEST_CASE("a step passes only when all its checks pass", "[report]") {
  const memlab::LabReport r = sample_report();
  CHECK(r.step_verdict(1) == memlab::Verdict::pass);
  CHECK(r.step_verdict(2) == memlab::Verdict::fail);
  CHECK(r.step_verdict(3) == memlab::Verdict::blocked);
  CHECK(r.step_verdict(4) == memlab::Verdict::not_checked);
  CHECK(r.steps_done() == 1);
  CHECK(r.next_step() == 2);
}

TEST_CASE("one failed check fails its step even if another passed", "[report]") {
  memlab::LabReport r = sample_report();
  r.checks[1].verdict = memlab::Verdict::fail;
  CHECK(r.step_verdict(1) == memlab::Verdict::fail);
  CHECK(r.steps_done() == 0);
  CHECK(r.next_step() == 1);
}

TEST_CASE("the printed report has a row per check, details, hints and progress", "[report]") {
  std::ostringstream out;
  memlab::print_report(out, sample_report());
  const std::string text = out.str();
  CHECK(text.find("lab1: Caching observed with vector_add") != std::string::npos);
  CHECK(text.find("GPU: Test GPU") != std::string::npos);
  CHECK(text.find("check step1.speed") != std::string::npos);
  CHECK(text.find("3480 GB/s") != std::string::npos);
  CHECK(text.find("1.01x") != std::string::npos);
  CHECK(text.find("FAIL") != std::string::npos);
  CHECK(text.find("BLOCKED") != std::string::npos);
  CHECK(text.find("what happened: launch 5: 0.71 ms") != std::string::npos);
  CHECK(text.find("hint: Record a start and a stop event") != std::string::npos);
  CHECK(text.find("not checked (STEP=3)") != std::string::npos);
  CHECK(text.find("[#---] 1 of 4 steps done. Next: step 2 in labs/lab1_caching/README.md") !=
        std::string::npos);
  CHECK(text.find("\033[") == std::string::npos);  // no colour unless asked for
}

TEST_CASE("a finished lab says so instead of naming a next step", "[report]") {
  memlab::LabReport r = sample_report();
  r.steps = 1;
  r.steps_requested = 1;
  r.checks.resize(2);
  std::ostringstream out;
  memlab::print_report(out, r);
  CHECK(out.str().find("[#] 1 of 1 steps done. Well done") != std::string::npos);
}

TEST_CASE("long hints wrap at the requested width", "[report]") {
  memlab::LabReport r = sample_report();
  r.checks[2].hint = std::string(30, 'x') + " " + std::string(30, 'y') + " " + std::string(30, 'z');
  std::ostringstream out;
  memlab::print_report(out, r, {false, 60});
  std::istringstream lines(out.str());
  std::string line;
  int hint_lines = 0;
  while (std::getline(lines, line)) {
    if (line.find("xxxx") != std::string::npos || line.find("yyyy") != std::string::npos ||
        line.find("zzzz") != std::string::npos) {
      ++hint_lines;
      CHECK(line.size() <= 60);
    }
  }
  CHECK(hint_lines == 3);
}

TEST_CASE("the JSON report carries verdicts, ratios and values", "[report]") {
  std::ostringstream out;
  memlab::write_json(out, sample_report());
  const auto json = nlohmann::json::parse(out.str());
  CHECK(json["lab"] == "lab1");
  CHECK(json["steps"] == 4);
  CHECK(json["steps_requested"] == 3);
  CHECK(json["steps_done"] == 1);
  CHECK(json["step_verdicts"] == nlohmann::json({"pass", "fail", "blocked", "not checked"}));
  CHECK(json["facts"]["GPU"] == "Test GPU");
  const auto& checks = json["checks"];
  REQUIRE(checks.size() == 4);
  CHECK(checks[1]["id"] == "step1.speed");
  CHECK(checks[1]["verdict"] == "pass");
  CHECK(checks[1]["timed"] == true);
  CHECK(checks[1]["ratio"] == 1.006);
  CHECK(checks[1]["values"]["student_gbps"] == 3480.0);
  CHECK(checks[0]["timed"] == false);
  CHECK(checks[0]["ratio"].is_null());
  CHECK(checks[3]["verdict"] == "blocked");
  CHECK(json["running"].is_null());
  CHECK(json["gpu_trouble"].is_null());
  // The keys in the order of the report, for people who read the file.
  CHECK(out.str().rfind(R"({"lab":"lab1","title":)", 0) == 0);
}

TEST_CASE("the JSON report stays valid whatever the student's program printed", "[report]") {
  memlab::LabReport report = sample_report();
  report.checks[2].detail = "quote \" backslash \\ newline \n tab \t bell \a";
  report.checks[2].hint = "caf\xc3\xa9, then a stray byte \xff and a cut one \xc3";
  report.checks[1].ratio = std::numeric_limits<double>::infinity();
  report.checks[1].values = {{"nan", std::numeric_limits<double>::quiet_NaN()}};
  std::ostringstream out;
  memlab::write_json(out, report);
  const auto json = nlohmann::json::parse(out.str());  // throws if the document is broken
  CHECK(json["checks"][2]["detail"] == "quote \" backslash \\ newline \n tab \t bell \a");
  CHECK(json["checks"][2]["hint"] == "caf\xc3\xa9, then a stray byte \xef\xbf\xbd and a cut one \xef\xbf\xbd");
  CHECK(json["checks"][1]["ratio"].is_null());
  CHECK(json["checks"][1]["values"]["nan"].is_null());
}

TEST_CASE("the JSON file is written whole and no temporary is left behind", "[report]") {
  const std::string path = "report_test_results.json";
  memlab::write_json_file(path, sample_report());
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  CHECK(text.str().front() == '{');
  CHECK(text.str().find("\"checks\"") != std::string::npos);
  CHECK_FALSE(std::ifstream(path + ".partial").good());
  std::remove(path.c_str());
  CHECK_THROWS_AS(memlab::write_json_file("/nonexistent-folder/results.json", sample_report()),
                  std::runtime_error);
}

TEST_CASE("format_text formats like printf, at any length", "[report]") {
  CHECK(memlab::format_text("%.0f GB/s (%d%%)", 3480.4, 87) == "3480 GB/s (87%)");
  CHECK(memlab::format_text("%s", std::string(500, 'a').c_str()).size() == 500);
  CHECK(memlab::format_text("plain").empty() == false);
}
