# Finds Catch2, version 2 or 3, and provides memlab::catch2: the framework plus
# MEMLAB_CATCH2_MAJOR for common/memlab/grading/catch2.hpp.
find_package(Catch2 QUIET)
if(NOT Catch2_FOUND)
  message(FATAL_ERROR
    "Catch2 (the test framework the graders use) was not found.\n"
    "  On Debian or Ubuntu:   make bootstrap   (installs the 'catch2' package)\n"
    "  On an offline GPU host: run scripts/carry-deps.sh on a machine that has Catch2,\n"
    "  copy the .deps folder it makes next to this file, and build again.")
endif()

set(MEMLAB_CATCH2_MAJOR "${Catch2_VERSION_MAJOR}")
# Catch.cmake (catch_discover_tests) is installed beside Catch2's package config.
list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")
message(STATUS "Catch2 ${Catch2_VERSION} found")
if(NOT MEMLAB_CATCH2_MAJOR MATCHES "^[23]$")
  message(FATAL_ERROR "Catch2 ${Catch2_VERSION} is not supported: use version 2.13 or 3.x")
endif()
# Version 3 is a compiled library; version 2 is one header, whose implementation
# is compiled in each program's main (see common/memlab/grading/catch2.hpp).
add_library(memlab_catch2 INTERFACE)
target_link_libraries(memlab_catch2 INTERFACE Catch2::Catch2)
target_compile_definitions(memlab_catch2 INTERFACE MEMLAB_CATCH2_MAJOR=${MEMLAB_CATCH2_MAJOR})
add_library(memlab::catch2 ALIAS memlab_catch2)
