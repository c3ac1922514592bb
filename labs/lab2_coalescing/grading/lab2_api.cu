// Exports the functions of one build of lab 2 as a table the grader looks up by
// name (see lab2.cuh). Compiled into every build; not part of the exercise.
#include "lab2_api.hpp"

extern "C" __attribute__((visibility("default"))) const lab2::Api memlab_lab2_api{
    &lab2::row_sums_thread_per_row, &lab2::column_sums_thread_per_column,
    &lab2::sectors_per_request, &lab2::row_sums, &lab2::column_sums};
