#include "memlab/profiling.cuh"

#include "memlab/cuda_check.cuh"
#include "memlab/device_facts.cuh"
#include "memlab/grading/plugin.hpp"

#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

// extern "C": ncu reports the name unmangled, as scripts/ncu_table.py expects.
extern "C" __global__ void memlab_profile_marker() {}

namespace memlab {

void mark_profile_group(cudaStream_t stream) {
  memlab_profile_marker<<<1, 1, 0, stream>>>();
  MEMLAB_CHECK_LAUNCH();
}

namespace {

// Loads the build at @p library and calls @p body with its table, turning a
// missing GPU and any error into the programs' exit codes.
int with_lab_build(const std::string& program, const std::string& library, const std::string& api_symbol,
                   const std::function<void(const void* api)>& body) {
  if (const auto why = why_no_gpu()) {
    std::cerr << program << " needs an NVIDIA GPU: " << *why << "\n";
    return 77;
  }
  try {
    const grading::Plugin build(library);
    body(build.symbol(api_symbol));
  } catch (const std::exception& error) {
    std::cerr << program << ": " << error.what() << "\n";
    return 1;
  }
  return 0;
}

// `--gpu`, which both programs answer: exit 0 if a GPU can be used here, else
// print why not and exit 77 (the scripts ask before they start a tool).
int answer_gpu_question() {
  const auto why = why_no_gpu();
  if (why) std::cout << *why << "\n";
  return why ? 77 : 0;
}

}  // namespace

int run_profile_program(int argc, char** argv, const std::string& api_symbol,
                        const std::vector<ProfileColumn>& columns,
                        const std::function<void(const void* api, std::ostream& plan)>& body) {
  return run_profile_program(argc, argv, api_symbol, columns, ProfileVariant{},
                             [&](const void* api, const void*, std::ostream& plan) { body(api, plan); });
}

int run_profile_program(int argc, char** argv, const std::string& api_symbol,
                        const std::vector<ProfileColumn>& columns, const ProfileVariant& variant,
                        const std::function<void(const void* api, const void* variant_api, std::ostream& plan)>& body) {
  const std::string program = argc > 0 ? argv[0] : "profile";
  if (argc == 2 && std::strcmp(argv[1], "--metrics") == 0) {
    std::set<std::string> printed;
    const char* separator = "";
    for (const ProfileColumn& column : columns) {
      for (const std::string& metric : {column.metric, column.denominator}) {
        if (metric.empty() || !printed.insert(metric).second) continue;
        std::cout << separator << metric;
        separator = ",";
      }
    }
    std::cout << "\n";
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--gpu") == 0) return answer_gpu_question();
  std::string student_path, plan_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--student") == 0) student_path = argv[i + 1];
    if (std::strcmp(argv[i], "--plan") == 0) plan_path = argv[i + 1];
  }
  if (student_path.empty() || plan_path.empty()) {
    std::cerr << "usage: " << program << " --student <lib.so> --plan <file> | --metrics\n";
    return 2;
  }
  return with_lab_build(program, student_path, api_symbol, [&](const void* api) {
    // The variant build is loaded first: if it is missing, nothing is written.
    std::optional<grading::Plugin> variant_build;
    if (!variant.name.empty()) variant_build.emplace(grading::variant_library(student_path, variant.name));
    const void* variant_api = variant_build ? variant_build->symbol(api_symbol) : nullptr;
    std::ofstream plan(plan_path);
    if (!plan) throw std::runtime_error("cannot write " + plan_path);
    for (const ProfileColumn& column : columns) {
      if (column.denominator.empty()) {
        plan << "column: " << column.metric << " | " << column.title << "\n";
      } else {
        plan << "ratio: " << column.metric << " / " << column.denominator << " | " << column.title << "\n";
      }
    }
    body(api, variant_api, plan);
  });
}

int run_sanitize_program(int argc, char** argv, const std::string& api_symbol,
                         const std::function<void(const void* api)>& body) {
  const std::string program = argc > 0 ? argv[0] : "sanitize";
  if (argc == 2 && std::strcmp(argv[1], "--gpu") == 0) return answer_gpu_question();
  if (argc != 3 || std::strcmp(argv[1], "--student") != 0) {
    std::cerr << "usage: " << program << " --student <lib.so> | --gpu\n";
    return 2;
  }
  return with_lab_build(program, argv[2], api_symbol, [&](const void* api) {
    body(api);
    MEMLAB_CHECK(cudaDeviceSynchronize());
    std::cout << program << ": done\n";
  });
}

}  // namespace memlab
