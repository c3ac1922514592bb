// Exports the functions of one build of lab 1 as a table the grader looks up by
// name (see lab1.cuh). Compiled into every build; not part of the exercise.
#include "lab1_api.hpp"

extern "C" __attribute__((visibility("default"))) const lab1::Api memlab_lab1_api{
    &lab1::vector_add, &lab1::time_launches, &lab1::choose_footprints,
    &lab1::predict_faster_when_warm};
