/// @file text.hpp
/// @brief Text for people: printf-style formatting into a std::string.
#pragma once

#include <string>

namespace memlab {

/// printf-style formatting into a std::string (C++17 has no std::format). Not
/// fmt's sprintf, though Debian 12 and Ubuntu 24.04 both ship fmt 9.1: the
/// compiler checks every call's arguments against its format here (the
/// attribute below), where fmt::sprintf would find a mismatch only at run time,
/// and fmt::format's checked strings would mean rewriting every format.
///
/// `format_text("%.0f GB/s", gbps)`.
std::string format_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace memlab
