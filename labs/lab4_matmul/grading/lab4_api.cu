// Exports the functions of one build of lab 4 as a table the grader looks up by
// name (see lab4.cuh). Compiled into every build; not part of the exercise.
#include "lab4_api.hpp"

extern "C" __attribute__((visibility("default"))) const lab4::Api memlab_lab4_api{
    &lab4::matmul_naive, &lab4::matmul_tiled,  &lab4::choose_tile_width, &lab4::matmul_dynamic,
    &lab4::caught_by,    &lab4::matmul_fast,   &lab4::fast_block_tile};
