/// @file catch2.hpp
/// @brief One include for Catch2 version 2 (Debian 12 ships 2.13) and version 3
/// (Ubuntu 24.04 ships 3.4), with the few names that differ between them.
///
/// The build defines MEMLAB_CATCH2_MAJOR from the Catch2 that find_package found.
/// Tests and graders include this header instead of Catch2's own, use the
/// ordinary macros (TEST_CASE, REQUIRE, CHECK, INFO, FAIL), and reach the rest
/// through the memlab::catch2 names below.
///
/// A file with a main() defines MEMLAB_CATCH2_MAIN before including this
/// header. With version 2 that file also compiles the framework itself (the
/// session, the command line and the listener interfaces exist only there);
/// version 3 is a compiled library already. Either way the framework is
/// compiled once per program, never once per grader.
#pragma once

#if !defined(MEMLAB_CATCH2_MAJOR)
#error "MEMLAB_CATCH2_MAJOR is not defined: build through the project's CMakeLists.txt"
#endif

#include <string>
#include <vector>

#if MEMLAB_CATCH2_MAJOR < 3 && defined(MEMLAB_CATCH2_MAIN)
#define CATCH_CONFIG_RUNNER
#endif

#if MEMLAB_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_case_info.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#else
#include <catch2/catch.hpp>
#endif

namespace memlab::catch2 {

#if MEMLAB_CATCH2_MAJOR >= 3
/// Floating-point comparison with a margin: `CHECK(x == Approx(1.0))`.
using Catch::Approx;
#else
/// Floating-point comparison with a margin: `CHECK(x == Approx(1.0))`.
using Catch::Detail::Approx;
#endif

#if defined(MEMLAB_CATCH2_MAIN)
#if MEMLAB_CATCH2_MAJOR >= 3
/// Catch2's command-line parser (Clara), for adding options to a Session.
namespace clara = Catch::Clara;
/// Base class of event listeners.
using ListenerBase = Catch::EventListenerBase;

/// The test case a TestCaseStats is about.
inline const Catch::TestCaseInfo& test_info(const Catch::TestCaseStats& stats) {
  return *stats.testInfo;
}
/// A test case's tags, without brackets, as written.
inline std::vector<std::string> tags_of(const Catch::TestCaseInfo& info) {
  std::vector<std::string> tags;
  for (const auto& tag : info.tags) tags.emplace_back(tag.original.data(), tag.original.size());
  return tags;
}
/// Runs test cases in the order they are written (steps build on each other).
inline void run_in_declaration_order(Catch::ConfigData& data) {
  data.runOrder = Catch::TestRunOrder::Declared;
}
/// True if the command line asked for another order than the declared one.
inline bool asks_for_another_order(const Catch::ConfigData& data) {
  return data.runOrder != Catch::TestRunOrder::Declared;
}
/// Sends the reporter's output to @p path instead of stdout.
inline void send_output_to(Catch::ConfigData& data, const std::string& path) {
  data.defaultOutputFilename = path;
}
/// The output file the command line named (-o), "" if none.
inline std::string output_asked_for(const Catch::ConfigData& data) { return data.defaultOutputFilename; }
/// True if the command line only asks for a listing (tests, tags, reporters).
inline bool only_lists(const Catch::ConfigData& data) {
  return data.listTests || data.listTags || data.listReporters;
}
#else
/// Catch2's command-line parser (Clara), for adding options to a Session.
namespace clara = Catch::clara;
/// Base class of event listeners.
using ListenerBase = Catch::TestEventListenerBase;

/// The test case a TestCaseStats is about.
inline const Catch::TestCaseInfo& test_info(const Catch::TestCaseStats& stats) {
  return stats.testInfo;
}
/// A test case's tags, without brackets, as written.
inline std::vector<std::string> tags_of(const Catch::TestCaseInfo& info) { return info.tags; }
/// Runs test cases in the order they are written (steps build on each other).
inline void run_in_declaration_order(Catch::ConfigData& data) {
  data.runOrder = Catch::RunTests::InDeclarationOrder;
}
/// True if the command line asked for another order than the declared one.
inline bool asks_for_another_order(const Catch::ConfigData& data) {
  return data.runOrder != Catch::RunTests::InDeclarationOrder;
}
/// Sends the reporter's output to @p path instead of stdout.
inline void send_output_to(Catch::ConfigData& data, const std::string& path) {
  data.outputFilename = path;
}
/// The output file the command line named (-o), "" if none.
inline std::string output_asked_for(const Catch::ConfigData& data) { return data.outputFilename; }
/// True if the command line only asks for a listing (tests, tags, reporters).
inline bool only_lists(const Catch::ConfigData& data) {
  return data.listTests || data.listTestNamesOnly || data.listTags || data.listReporters;
}
#endif

/// What a failed assertion said: its message (FAIL, an exception) or its
/// expanded expression, followed by any INFO messages in scope.
inline std::string failure_text(const Catch::AssertionStats& stats) {
  const auto& result = stats.assertionResult;
  std::string text = std::string(result.getMessage());
  if (text.empty() && result.hasExpression()) text = result.getExpandedExpression();
  for (const auto& info : stats.infoMessages) {
    if (info.message == text) continue;  // Catch2 also files a FAIL's message as an info message
    if (!text.empty()) text += "\n";
    text += info.message;
  }
  return text;
}
#endif  // MEMLAB_CATCH2_MAIN

}  // namespace memlab::catch2
