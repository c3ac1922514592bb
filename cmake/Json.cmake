# Finds nlohmann-json (Debian 12 3.11.2, Ubuntu 24.04 3.11.3; header-only), which
# writes the graders' JSON results. `make bootstrap` installs it; on a GPU server
# without packages, scripts/carry-deps.sh carries it in .deps/ as it does Catch2.
find_package(nlohmann_json 3.11 QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR "nlohmann-json 3.11 or later was not found.\n"
                      "  On Debian or Ubuntu:   make bootstrap   (installs the 'nlohmann-json3-dev' package)\n"
                      "  On a GPU server without packages: run scripts/carry-deps.sh on a machine that has it,\n"
                      "  copy its .deps/ folder here and configure with -DCMAKE_PREFIX_PATH=$PWD/.deps.")
endif()
