/// @file launch_watch.hpp
/// @brief The runner's watch on the kernels each call of a lab function launches.
///
/// The method checks (machine_code.hpp) read every kernel of the student's
/// build, but which of them a function launches is known only where it runs:
/// a build can hold a tiled kernel and have its tiled step launch the naive
/// one (red team 6). The runner subscribes to the CUDA driver's launch calls
/// through CUPTI's callback interface before it loads the build, so every
/// launch, by the runtime's `<<<...>>>`, its launch functions or the driver's,
/// reaches the watch with the kernel's name. A CUDA graph's launch names no
/// kernel: it is counted as unnamed. The watch costs a function call per
/// launch, no GPU time.
///
/// Runs in the student's runner: what it reports is that process's word, read
/// below the build's own code (a build would have to find CUPTI's subscriber in
/// memory and undo it; grader/README.md, threat model).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace memlab::grading {

/// The kernels one call of a lab function launched, as the runner's watch saw them.
struct Launches {
  bool watched = false;              ///< the runner watched (CUPTI there); if not, nothing is known
  std::vector<std::string> kernels;  ///< the kernels' mangled names, in launch order
  std::uint32_t unnamed = 0;         ///< launches that name no kernel (CUDA graphs)
};

/// Runner side: starts watching this process's kernel launches. Returns ""
/// or why it cannot (CUPTI missing, or another subscriber); without a watch,
/// take_launches() reports nothing watched.
std::string watch_launches();

/// Runner side: the launches since the last call, and starts a new list.
Launches take_launches();

}  // namespace memlab::grading
