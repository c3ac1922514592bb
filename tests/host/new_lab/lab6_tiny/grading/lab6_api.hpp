/// @file lab6_api.hpp
/// @brief The table through which the grader, the runner and the profile and
/// sanitize programs reach lab6's functions (lab6.cuh declares them).
#pragma once

#include "lab6.cuh"

namespace lab6 {

/// The lab's functions, as the grader finds them in a build.
struct Api {
  decltype(&lab6::scale) scale;  ///< step 1
};

}  // namespace lab6
