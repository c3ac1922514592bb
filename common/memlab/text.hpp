/// @file text.hpp
/// @brief Text for people: printf-style formatting into a std::string.
#pragma once

#include <string>

namespace memlab {

/// printf-style formatting into a std::string (C++17 has no std::format):
/// `format_text("%.0f GB/s", gbps)`.
std::string format_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace memlab
