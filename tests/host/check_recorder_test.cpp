#include "memlab/grading/catch2.hpp"
#include "memlab/grading/check_recorder.hpp"

#include <stdexcept>

using memlab::Verdict;
using memlab::grading::CheckRecorder;

TEST_CASE("the step comes from the [stepN] tag", "[recorder]") {
  CHECK(memlab::grading::step_of({"step3", "speed"}) == 3);
  CHECK(memlab::grading::step_of({"speed", "step12"}) == 12);
  CHECK(memlab::grading::step_of({"steps", "stepx"}) == 0);
  CHECK(memlab::grading::step_of({}) == 0);
}

TEST_CASE("a check's id is its step and its other tag", "[recorder]") {
  CheckRecorder recorder;
  recorder.begin("vector_add keeps up with the reference", {"step1", "speed"});
  recorder.end(true, 0.5);
  REQUIRE(recorder.results().size() == 1);
  const auto& row = recorder.results()[0];
  CHECK(row.id == "step1.speed");
  CHECK(row.step == 1);
  CHECK(row.title == "vector_add keeps up with the reference");
  CHECK(row.verdict == Verdict::pass);
  CHECK(row.seconds == 0.5);
}

TEST_CASE("tags that say how a check runs do not name it", "[recorder]") {
  CheckRecorder recorder;
  recorder.begin("tiled keeps up", {"buggy_kernels", "step2", "timing", "speed"});
  recorder.end(true, 0.1);
  CHECK(recorder.results()[0].id == "step2.speed");
}

TEST_CASE("a check tagged [timing] is marked as timed, and only such a check", "[recorder]") {
  CheckRecorder recorder;
  recorder.begin("tiled keeps up", {"step2", "timing", "speed"});
  recorder.end(true, 0.1);
  recorder.begin("tiled is correct", {"step2", "correct"});
  recorder.end(true, 0.1);
  CHECK(recorder.results()[0].timed);
  CHECK_FALSE(recorder.results()[1].timed);
}

TEST_CASE("the first failed assertion's text is kept as the detail", "[recorder]") {
  CheckRecorder recorder;
  recorder.begin("correct", {"step1", "correct"});
  recorder.current().hint = "check the bound";
  recorder.assertion_failed("n = 33: c[32] never written");
  recorder.assertion_failed("a later failure");
  recorder.end(false, 0.1);
  const auto& row = recorder.results()[0];
  CHECK(row.verdict == Verdict::fail);
  CHECK(row.detail == "n = 33: c[32] never written");
  CHECK(row.hint == "check the bound");
}

TEST_CASE("a blocked check is reported as blocked, not failed", "[recorder]") {
  CheckRecorder recorder;
  recorder.begin("first", {"step1", "correct"});
  recorder.end(false, 0.0);
  CHECK_FALSE(recorder.step_passed(1));
  recorder.begin("second", {"step2", "timer"});
  recorder.block(1);
  recorder.assertion_failed("step 1 has not passed yet");
  recorder.end(false, 0.0);
  CHECK(recorder.results()[1].verdict == Verdict::blocked);
  CHECK(recorder.results()[1].detail == "step 1 has not passed yet");
}

TEST_CASE("a step has passed only if it ran and every check of it passed", "[recorder]") {
  CheckRecorder recorder;
  CHECK_FALSE(recorder.step_passed(1));  // nothing ran
  recorder.begin("a", {"step1", "a"});
  recorder.end(true, 0.0);
  CHECK(recorder.step_passed(1));
  recorder.begin("b", {"step1", "b"});
  recorder.end(false, 0.0);
  CHECK_FALSE(recorder.step_passed(1));
}

TEST_CASE("the recorder refuses events out of order", "[recorder]") {
  CheckRecorder recorder;
  CHECK_THROWS_AS(recorder.end(true, 0.0), std::logic_error);
  CHECK_THROWS_AS(recorder.current(), std::logic_error);
  recorder.begin("a", {"step1"});
  CHECK_THROWS_AS(recorder.begin("b", {"step1"}), std::logic_error);
  CHECK(recorder.running());
}
