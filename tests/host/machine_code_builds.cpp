// The method checks' reading of real builds (machine_code.hpp), with the
// toolkit's cuobjdump and ptxas: the references, mutants and red-team files of
// labs 3 to 5, as GPUs of four generations would run them (machine code for
// 7.5, 8.9 and 9.0; for 10.0, which has no machine code in a build for Turing
// to Hopper, the machine code ptxas makes of the PTX), each compared with its
// lab's reference build as the grader does.
//
//   machine_code_builds <cuobjdump> <nvdisasm folder> <ptxas> <name>=<library>...
//
// A name is <lab>_<what>; <lab>_reference is also the reference the others are
// compared with. Exits 77 (skipped) when the build found no cuobjdump.
#include "memlab/grading/machine_code.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>

using namespace memlab::grading;

namespace {

// What each build shows over all its kernels: a kernel staging data in shared
// memory, one computing on floats in double; and the compute capabilities at
// which it cannot be read (code beside what the compiler made).
struct Expected {
  bool shared;
  bool in_double;
  std::set<int> unreadable_at = {};
  std::set<int> neither_at = {};  // where the method's code is compiled out (#if __CUDA_ARCH__ >= 900)
  // Lab 4's step 4: whether the kernels whose names hold step4_kernel keep a tile
  // (256 bytes at width 8) or more in fixed __shared__ arrays, beyond the reference
  // build's least static shared memory (what the GPU reserves in every block).
  const char* step4_kernel = nullptr;
  bool step4_fixed_tiles = false;
};

const std::map<std::string, Expected> kExpected = {
    {"lab3_reference", {false, false}},
    {"lab3_fair_neumaier", {true, false}},
    {"lab3_fair_horner_ilp4", {false, false}},
    {"lab3_trick_compensated_is_double", {false, true}},  // step 2 fails on it
    // Computes the double polynomial in float, then stores it as double: no
    // arithmetic in double, which step 2 leaves to step 3.
    {"lab3_double_polynomial_in_float", {false, false}},
    // Red team 12: floats made doubles exactly without a conversion instruction,
    // or in a kernel of their own; two PTX statements on one line.
    {"lab3_widen_without_f2f", {false, true}},
    {"lab3_widen_in_separate_kernels", {false, true}},
    {"lab3_two_statements_per_line", {false, true}},
    // A fatbin of the reference compiled for sm_100 and sm_120, as bytes: read
    // where the GPU runs this file's own code, refused where it would be read instead.
    {"lab3_decoy_fatbin", {false, true, {100}}},
    // Red team 13: additions in a helper kept apart, or in an extern "C" kernel; an
    // honest build's fatbin placed to swallow the real one (read from nvcc's own
    // device code, as grade.py reads it); sinf's products in double (fair).
    {"lab3_noinline_double_helper", {false, true}},
    {"lab3_extern_c_in_double", {false, true}},
    {"lab3_decoy_swallows_real", {false, true}},
    {"lab3_fair_sinf", {false, false}},
    // Red team 14: double atomics; an addition behind a label in inline PTX.
    {"lab3_double_atomics", {false, true}},
    {"lab3_label_hides_addition", {false, true}},
    // Red team 15: PTX spelled to mislead a reader of PTX text ("add .rn.f64", a quoted brace).
    {"lab3_ptx_spelled_to_mislead", {false, true}},
    // Red team 16: floats widened into shared memory and added by the TMA's untyped reduction
    // (the shared memory is written, and read by the TMA only; Hopper and later).
    {"lab3_tma_reduction", {false, true, {}, {75, 89}}},
    {"lab4_reference", {true, false, {}, {}, "matmul_dynamic_kernel", false}},
    // Red team 23: step 4 launched with the tiles' bytes, its tiles in fixed arrays (a template).
    {"lab4_fixed_tiles_given_bytes", {true, false, {}, {}, "matmul_fixed_tile_kernel", true}},
    {"lab4_fair_noinline_tile_helpers", {true, false}},  // red team 13
    {"lab4_all_naive", {false, false}},  // step 2 fails on it
    {"lab4_one_shared_store", {false, false}},  // a flag written, never read back
    {"lab4_cvta_to_shared", {false, false}},    // an address converted, nothing staged
    // Over the whole build: a tiled kernel never called, or step 4's kernel, pass
    // the check while the tiled step runs the naive one (grader/README.md).
    {"lab4_trick_tiled_kernel_never_called", {true, false}},
    {"lab4_step4_supplies_shared", {true, false}},
    {"lab5_reference", {true, false}},
    {"lab5_fair_split_atomic", {true, false}},
    {"lab5_trick_shared_x_without_shared", {false, false}},  // step 3 fails on it
    {"lab5_shared_scalars_not_x", {true, false}},  // alpha and beta staged, not x: passes (README)
    {"lab5_fair_generic_pointer", {true, false}},  // red team 13: the window read through a generic pointer
};

// "" for a build without a step 4 kernel to check; else "  step 4 static shared: <bytes beyond
// the reserve of each such kernel>", with "wrong" where one is not as expected (or none is found).
std::string step4_tiles(const Expected& expected, const std::vector<KernelCode>& kernels, const BuildCode& reference) {
  if (expected.step4_kernel == nullptr) return "";
  std::uint32_t reserved = UINT32_MAX;
  for (const KernelCode& kernel : reference.kernels) reserved = std::min(reserved, kernel.static_shared_bytes);
  std::string shown = "  step 4 static shared beyond " + std::to_string(reserved) + ":";
  bool found = false, right = true;
  for (const KernelCode& kernel : kernels) {
    if (readable_name(kernel.name).find(expected.step4_kernel) == std::string::npos) continue;
    found = true;
    const std::uint32_t beyond = kernel.static_shared_bytes - std::min(reserved, kernel.static_shared_bytes);
    right = right && (beyond >= 256) == expected.step4_fixed_tiles;
    shown += " " + std::to_string(beyond);
  }
  return shown + (found && right ? "" : " (wrong)");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::string(argv[1]).empty()) {
    std::puts("skipped: no cuobjdump was found when the project was configured (scripts/bootstrap.sh --machine-code)");
    return 77;
  }
  const CodeTools tools{argv[1], argv[2], argv[3]};
  std::map<std::string, std::string> libraries;
  for (int i = 4; i < argc; ++i) {
    const std::string argument = argv[i];
    libraries[argument.substr(0, argument.find('='))] = argument.substr(argument.find('=') + 1);
  }
  int failures = 0, checked = 0;
  for (const auto& [name, library] : libraries) {
    const auto expected = kExpected.find(name);
    const auto reference = libraries.find(name.substr(0, name.find('_')) + "_reference");
    if (expected == kExpected.end() || reference == libraries.end()) {
      std::printf("FAIL %s: no expectation or no reference for it\n", name.c_str());
      ++failures;
      continue;
    }
    for (int capability : {75, 89, 90, 100}) {
      ++checked;
      const bool unreadable_expected = expected->second.unreadable_at.count(capability) > 0;
      try {
        const BuildCode build = read_kernels(tools, library, capability, reference->second);
        const std::vector<KernelCode>& kernels = build.kernels;
        const bool shared = std::any_of(kernels.begin(), kernels.end(), uses_shared_memory);
        const bool in_double = std::any_of(kernels.begin(), kernels.end(), computes_on_floats_in_double);
        // No build holds machine code for 10.0: there the PTX is compiled, for the GPU itself.
        const bool from_ptx = build.code.ptx && build.machine == capability;
        const std::string tiles = step4_tiles(expected->second, kernels, read_kernels(tools, reference->second, capability));
        const bool neither = expected->second.neither_at.count(capability) > 0;
        const bool right = !unreadable_expected && shared == (expected->second.shared && !neither) &&
                           in_double == (expected->second.in_double && !neither) && !kernels.empty() &&
                           from_ptx == (capability == 100) && tiles.find("wrong") == std::string::npos;
        std::printf("%s %-40s %d.%d %-4s %2zu kernels  shared memory: %-3s  floats in double: %s%s\n",
                    right ? "ok  " : "FAIL", name.c_str(), capability / 10, capability % 10,
                    from_ptx ? "PTX" : "SASS", kernels.size(), shared ? "yes" : "no", in_double ? "yes" : "no",
                    tiles.c_str());
        failures += right ? 0 : 1;
      } catch (const MachineCodeUnreadable& error) {
        std::printf("%s %-40s %d.%d unreadable: %s\n", unreadable_expected ? "ok  " : "FAIL", name.c_str(),
                    capability / 10, capability % 10, error.what());
        failures += unreadable_expected ? 0 : 1;
      }
    }
  }
  std::printf("%d of %d readings as expected\n", checked - failures, checked);
  return failures == 0 && checked > 0 ? 0 : 1;
}
