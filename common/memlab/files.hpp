/// @file files.hpp
/// @brief Reading a whole file, and writing one so that no reader ever sees half of it.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace memlab {

/// Writes @p path through @p write: into `path.partial` beside it, then renamed
/// over it, so a reader (or a grader killed half-way) never meets half a file.
/// Throws std::runtime_error if the file cannot be written.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

/// Everything in the file at @p path, bytes as they are; "" when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace memlab
