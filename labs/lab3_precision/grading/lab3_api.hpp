/// @file lab3_api.hpp
/// @brief The table through which the grader, the runner and the profile and
/// sanitize programs reach lab3's functions (lab3.cuh declares them).
#pragma once

#include "lab3.cuh"

namespace lab3 {

/// One pointer per function of lab3.cuh, exported by every build of the lab
/// under the name memlab_lab3_api (the lab's table file defines it).
struct Api {
  void (*row_sums_float)(const float*, float*, std::size_t, std::size_t, cudaStream_t);     ///< step 1
  void (*row_sums_double)(const double*, double*, std::size_t, std::size_t, cudaStream_t);  ///< step 1
  decltype(&lab3::row_sums_compensated) row_sums_compensated;                               ///< step 2
  void (*polynomial_float)(const float*, float*, std::size_t, cudaStream_t);                ///< step 3
  void (*polynomial_double)(const double*, double*, std::size_t, cudaStream_t);             ///< step 3
};

}  // namespace lab3
