#include "memlab/grading/check_recorder.hpp"

#include <cctype>
#include <stdexcept>

namespace memlab::grading {

int step_of(const std::vector<std::string>& tags) {
  for (const std::string& tag : tags) {
    if (tag.size() > 4 && tag.compare(0, 4, "step") == 0) {
      const std::string digits = tag.substr(4);
      bool all_digits = true;
      for (char c : digits) all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
      if (all_digits) return std::stoi(digits);
    }
  }
  return 0;
}

void CheckRecorder::begin(const std::string& title, const std::vector<std::string>& tags) {
  if (running_) throw std::logic_error("CheckRecorder::begin: a check is already running");
  current_ = CheckResult{};
  current_.title = title;
  current_.step = step_of(tags);
  for (const std::string& tag : tags) current_.timed = current_.timed || tag == kTimingTag;
  std::string name;
  for (const std::string& tag : tags) {
    if (tag != "step" + std::to_string(current_.step) && tag != kTimingTag && tag != kBuggyKernelsTag) {
      name = tag;
      break;
    }
  }
  current_.id = "step" + std::to_string(current_.step) + "." + (name.empty() ? title : name);
  running_ = true;
  have_failure_text_ = false;
  blocked_by_.reset();
}

void CheckRecorder::assertion_failed(const std::string& text) {
  if (!running_ || have_failure_text_) return;
  current_.detail = text;
  have_failure_text_ = true;
}

void CheckRecorder::end(bool passed, double seconds) {
  if (!running_) throw std::logic_error("CheckRecorder::end: no check is running");
  current_.seconds = seconds;
  if (blocked_by_) {
    current_.verdict = Verdict::blocked;
    current_.detail = "step " + std::to_string(*blocked_by_) + " has not passed yet";
  } else {
    current_.verdict = passed ? Verdict::pass : Verdict::fail;
  }
  results_.push_back(current_);
  running_ = false;
}

CheckResult& CheckRecorder::current() {
  if (!running_) throw std::logic_error("CheckRecorder::current: no check is running");
  return current_;
}

void CheckRecorder::block(int step) {
  if (!running_) throw std::logic_error("CheckRecorder::block: no check is running");
  blocked_by_ = step;
}

bool CheckRecorder::step_passed(int step) const {
  bool any = false;
  for (const CheckResult& result : results_) {
    if (result.step != step) continue;
    // Later steps build on the code being right, not on it being fast.
    if (result.verdict != Verdict::pass && !result.speed_only) return false;
    any = true;
  }
  return any;
}

}  // namespace memlab::grading
