// Red team 21: the grader's own SASS parser and method predicates on a build's listing.
//   g++ -std=c++17 -I common -o harness predicates_harness.cpp common/memlab/grading/machine_code.cpp
//   .deps/cuda-tools/nvidia/cu13/bin/cuobjdump -sass -arch sm_90 lib.so > lib.sass && ./harness lib.sass
// One line per kernel: uses_shared_memory, adds_in_double, computes_on_floats_in_double, name.
#include "memlab/grading/machine_code.hpp"
#include <fstream>
#include <iostream>
#include <sstream>
using namespace memlab::grading;
int main(int argc, char** argv) {
  std::ifstream in(argv[1]);
  std::stringstream s; s << in.rdbuf();
  for (const KernelCode& k : parse_sass(s.str())) {
    std::cout << (uses_shared_memory(k) ? "SHARED " : "------ ") << (adds_in_double(k) ? "ADDS_DOUBLE " : "----------- ")
              << (computes_on_floats_in_double(k) ? "FLOATS_IN_DOUBLE " : "---------------- ") << k.name << "  ["
              << readable_name(k.name) << "]\n";
  }
}
