#include "memlab/verdicts.hpp"

namespace memlab {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::blocked: return "blocked";
    case Verdict::not_checked: return "not checked";
  }
  return "unknown";
}

Verdict LabReport::step_verdict(int step) const {
  bool any = false;
  bool all_pass = true;
  bool all_blocked = true;
  for (const CheckResult& check : checks) {
    if (check.step != step || check.verdict == Verdict::not_checked) continue;
    any = true;
    all_pass = all_pass && check.verdict == Verdict::pass;
    all_blocked = all_blocked && check.verdict == Verdict::blocked;
  }
  if (!any) return Verdict::not_checked;
  if (all_pass) return Verdict::pass;
  return all_blocked ? Verdict::blocked : Verdict::fail;
}

int LabReport::steps_done() const {
  int done = 0;
  for (int step = 1; step <= steps; ++step) done += step_verdict(step) == Verdict::pass;
  return done;
}

int LabReport::next_step() const {
  for (int step = 1; step <= steps; ++step) {
    if (step_verdict(step) != Verdict::pass) return step;
  }
  return 0;
}

}  // namespace memlab
