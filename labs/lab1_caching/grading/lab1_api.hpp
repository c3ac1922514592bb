/// @file lab1_api.hpp
/// @brief The table through which the grader, the runner and the profile and
/// sanitize programs reach lab1's functions (lab1.cuh declares them).
#pragma once

#include "lab1.cuh"

namespace lab1 {

/// One pointer per function of lab1.cuh, exported by every build of the lab (yours, the reference, the test variants)
/// under the name memlab_lab1_api (the lab's table file defines it).
struct Api {
  decltype(&lab1::vector_add) vector_add;                              ///< step 1
  decltype(&lab1::time_launches) time_launches;                        ///< step 2
  decltype(&lab1::choose_footprints) choose_footprints;                ///< step 3
  decltype(&lab1::predict_faster_when_warm) predict_faster_when_warm;  ///< step 4
};

}  // namespace lab1
