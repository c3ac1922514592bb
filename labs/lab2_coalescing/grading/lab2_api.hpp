/// @file lab2_api.hpp
/// @brief The table through which the grader, the runner and the profile and
/// sanitize programs reach lab2's functions (lab2.cuh declares them).
#pragma once

#include "lab2.cuh"

namespace lab2 {

/// One pointer per function of lab2.cuh, exported by every build of the lab
/// under the name memlab_lab2_api (the lab's table file defines it).
struct Api {
  decltype(&lab2::row_sums_thread_per_row) row_sums_thread_per_row;              ///< step 1
  decltype(&lab2::column_sums_thread_per_column) column_sums_thread_per_column;  ///< step 1
  decltype(&lab2::sectors_per_request) sectors_per_request;                      ///< step 2
  decltype(&lab2::row_sums) row_sums;                                            ///< step 3
  decltype(&lab2::column_sums) column_sums;                                      ///< step 3
};

}  // namespace lab2
