# Grades one build of a lab and checks the verdicts in the grader's JSON results.
#
#   cmake -DGRADER=<program> -DBUILD=<lib.so> -DOUTPUT_DIR=<dir> -DEXPECT=<id=verdict,...> -P ExpectVerdicts.cmake
#
# EXPECT "all=pass" means every check passes and every step is done; otherwise
# each listed check must have run and reached the listed verdict. Without a GPU
# the grader exits with 77 and this script prints MEMLAB_SKIP_NO_GPU, which the
# test's SKIP_REGULAR_EXPRESSION turns into "skipped".
foreach(var GRADER BUILD OUTPUT_DIR EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ExpectVerdicts.cmake needs -D${var}=...")
  endif()
endforeach()

set(results "${OUTPUT_DIR}/results.json")
file(REMOVE "${results}")
execute_process(
  COMMAND "${GRADER}" --student "${BUILD}" --results "${results}" --output-dir "${OUTPUT_DIR}"
  RESULT_VARIABLE status)

if(status EQUAL 77)
  message("MEMLAB_SKIP_NO_GPU: the grader found no usable GPU")
  return()
endif()
if(NOT status EQUAL 0 AND NOT status EQUAL 1)
  message(FATAL_ERROR "the grader could not grade ${BUILD} (exit status ${status})")
endif()
if(NOT EXISTS "${results}")
  message(FATAL_ERROR "the grader wrote no results to ${results}")
endif()

file(READ "${results}" json)
string(JSON check_count LENGTH "${json}" checks)
set(ids "")
if(check_count GREATER 0)
  math(EXPR last "${check_count} - 1")
  foreach(i RANGE ${last})
    string(JSON id GET "${json}" checks ${i} id)
    string(JSON verdict GET "${json}" checks ${i} verdict)
    set("verdict_${id}" "${verdict}")
    list(APPEND ids "${id}")
  endforeach()
endif()

set(problems "")
string(REPLACE "," ";" expectations "${EXPECT}")
foreach(expectation IN LISTS expectations)
  if(NOT expectation MATCHES "^([^=]+)=(.+)$")
    message(FATAL_ERROR "bad expectation '${expectation}': write <check id>=<verdict>")
  endif()
  set(id "${CMAKE_MATCH_1}")
  set(wanted "${CMAKE_MATCH_2}")
  if(id STREQUAL "all")
    string(JSON steps GET "${json}" steps)
    string(JSON done GET "${json}" steps_done)
    foreach(check IN LISTS ids)
      if(NOT verdict_${check} STREQUAL wanted)
        list(APPEND problems "${check}: ${verdict_${check}}, expected ${wanted}")
      endif()
    endforeach()
    if(wanted STREQUAL "pass" AND NOT done EQUAL steps)
      list(APPEND problems "${done} of ${steps} steps done, expected all")
    endif()
  elseif(NOT DEFINED "verdict_${id}")
    list(APPEND problems "${id}: did not run, expected ${wanted}")
  elseif(NOT verdict_${id} STREQUAL wanted)
    list(APPEND problems "${id}: ${verdict_${id}}, expected ${wanted}")
  else()
    message(STATUS "${id}: ${wanted}, as expected")
  endif()
endforeach()

if(problems)
  string(REPLACE ";" "\n  " problems "${problems}")
  message(FATAL_ERROR "verdicts differ from what was expected:\n  ${problems}")
endif()
message(STATUS "all expected verdicts reached (${EXPECT})")
