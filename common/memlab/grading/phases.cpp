// Phase (phases.hpp): totals by name, kept only when MEMLAB_TRACE_PHASES is set.
#include "memlab/grading/phases.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace memlab::grading {

namespace {

struct Total {
  int count = 0;
  double seconds = 0.0;
};

bool tracing() {
  static const bool on = std::getenv("MEMLAB_TRACE_PHASES") != nullptr;
  return on;
}

std::map<std::string, Total>& totals() {
  static std::map<std::string, Total> by_name;
  return by_name;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Phase::Phase(const char* name) : name_(name), begin_seconds_(tracing() ? now_seconds() : 0.0) {}

Phase::~Phase() {
  if (!tracing()) return;
  Total& total = totals()[name_];
  ++total.count;
  total.seconds += now_seconds() - begin_seconds_;
}

void print_phases() {
  if (!tracing()) return;
  for (const auto& [name, total] : totals()) {
    std::fprintf(stderr, "phase %-22s %6d calls %9.1f ms %8.3f ms each\n", name.c_str(), total.count,
                 1e3 * total.seconds, 1e3 * total.seconds / std::max(total.count, 1));
  }
}

}  // namespace memlab::grading
