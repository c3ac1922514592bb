// Loading lab builds: where a build's variant (the same file compiled with other
// flags, for `make lab2-profile`) is found.
#include "memlab/grading/plugin.hpp"

#include "memlab/grading/catch2.hpp"

#include <stdexcept>

using memlab::grading::variant_library;

TEST_CASE("a variant build is found beside the usual build, named after it") {
  CHECK(variant_library("build/labs/lab2/liblab2_student.so", "uncached") ==
        "build/labs/lab2/liblab2_student_uncached.so");
  CHECK(variant_library("/abs/path.so/liblab2_reference.so", "uncached") == "/abs/path.so/liblab2_reference_uncached.so");
}

TEST_CASE("a variant of something that is not a lab build is refused") {
  CHECK_THROWS_AS(variant_library("build/labs/lab2/liblab2_student", "uncached"), std::invalid_argument);
  CHECK_THROWS_AS(variant_library(".so", "uncached"), std::invalid_argument);
  CHECK_THROWS_AS(variant_library("liblab2_student.so", ""), std::invalid_argument);
}
