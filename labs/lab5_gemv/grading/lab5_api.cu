// Exports the functions of one build of lab 5 as a table the grader looks up by
// name (see lab5.cuh). Compiled into every build; not part of the exercise.
#include "lab5_api.hpp"

extern "C" __attribute__((visibility("default"))) const lab5::Api memlab_lab5_api{
    &lab5::gemv_row_major, &lab5::gemv_column_major, &lab5::gemv_shared_x, &lab5::fast_layout, &lab5::gemv_fast};
