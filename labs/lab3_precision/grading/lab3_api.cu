// Exports the functions of one build of lab 3 as a table the grader looks up by
// name (see lab3.cuh). Compiled into every build; not part of the exercise.
#include "lab3_api.hpp"

extern "C" __attribute__((visibility("default"))) const lab3::Api memlab_lab3_api{
    &lab3::row_sums, &lab3::row_sums, &lab3::row_sums_compensated, &lab3::polynomial, &lab3::polynomial};
