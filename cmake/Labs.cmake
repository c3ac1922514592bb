# How a lab is built and tested.
#
# A lab folder holds the student's file (the skeleton), the header declaring the
# functions the grader calls, a table file exporting those functions, and the
# grader. Each "build of the lab" is one implementation file plus the table,
# compiled into a shared library; the grader program loads the student's build
# and the reference build side by side (see common/memlab/grading/plugin.hpp).

set(MEMLAB_EXPECT_SCRIPT "${PROJECT_SOURCE_DIR}/scripts/expect_verdicts.py")
set(MEMLAB_FORBIDDEN_HEADERS "${CMAKE_CURRENT_LIST_DIR}/forbidden")
set(MEMLAB_SANITIZE_SCRIPT "${PROJECT_SOURCE_DIR}/scripts/sanitize.sh")
# Libraries a lab can forbid. The instructors' grader finds their use in the
# source (grader/memlab_grader/scan.py); cuBLAS, whose names are linked rather
# than header-only, also has stand-in headers that stop a lab build.
set(MEMLAB_FORBIDDABLE cublas thrust cub)

# memlab_add_lab_build(<target> <lab> <source>): a build of <lab> from <source>.
function(memlab_add_lab_build target lab source)
  get_property(lab_dir GLOBAL PROPERTY memlab_${lab}_dir)
  add_library(${target} MODULE "${source}" $<TARGET_OBJECTS:${lab}_table>)
  target_include_directories(${target} PRIVATE "${lab_dir}")
  target_link_libraries(${target} PRIVATE memlab::headers)
  # Libraries the lab forbids: where cmake/forbidden/ has stand-ins, their
  # headers are replaced by ones that stop the compile with the reason.
  # --no-undefined: every name the build uses must come from what it is linked
  # with, never from the grader that loads it (which has cuBLAS, the yardstick,
  # linked in).
  get_property(forbidden GLOBAL PROPERTY memlab_${lab}_forbidden)
  foreach(library IN LISTS forbidden)
    if(IS_DIRECTORY "${MEMLAB_FORBIDDEN_HEADERS}/${library}")
      target_include_directories(${target} BEFORE PRIVATE "${MEMLAB_FORBIDDEN_HEADERS}/${library}")
    endif()
  endforeach()
  target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  set_target_properties(${target} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/labs/${lab}"
    CUDA_VISIBILITY_PRESET hidden   # only the table is exported
    CXX_VISIBILITY_PRESET hidden)
endfunction()

# memlab_add_reference(<target> <lab> <solution> [<nvcc flag>...]): a reference
# build, <lab>_reference or a profile variant's <lab>_reference_<variant> (built
# with the extra flags). Compiled from <solution>; or, in a released tree (`make
# release`: no solutions/, a references/ folder instead), the prebuilt
# lib<target>.so copied to where the compiled one would be, beside the grader.
# Every reference build is listed in the build folder's reference_builds.txt
# (CMakeLists.txt), which `make release` builds and ships.
set(MEMLAB_PREBUILT_REFERENCES "${PROJECT_SOURCE_DIR}/references")
function(memlab_add_reference target lab solution)
  set_property(GLOBAL APPEND PROPERTY memlab_reference_builds ${target})
  if(EXISTS "${solution}")
    memlab_add_lab_build(${target} ${lab} "${solution}")
    if(ARGN)
      target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${ARGN}>")
    endif()
    return()
  endif()
  set(prebuilt "${MEMLAB_PREBUILT_REFERENCES}/lib${target}.so")
  if(NOT EXISTS "${prebuilt}")
    message(FATAL_ERROR "${lab}: neither its solution (${solution}) nor a prebuilt reference (${prebuilt}) is here")
  endif()
  # It links the CUDA runtime it was built with (libcudart.so.<major>), as the grader will.
  string(REGEX MATCH "^[0-9]+" built_with "${MEMLAB_RELEASE_CUDA_VERSION}")
  string(REGEX MATCH "^[0-9]+" here "${CMAKE_CUDA_COMPILER_VERSION}")
  if(NOT built_with STREQUAL here)
    message(FATAL_ERROR "The prebuilt references in ${MEMLAB_PREBUILT_REFERENCES} were built with CUDA "
      "${MEMLAB_RELEASE_CUDA_VERSION}, and this machine's toolkit is CUDA ${CMAKE_CUDA_COMPILER_VERSION}: "
      "install CUDA ${built_with}, or ask your instructor for a release built with CUDA ${here}.")
  endif()
  set(copy "${CMAKE_BINARY_DIR}/labs/${lab}/lib${target}.so")
  add_custom_command(OUTPUT "${copy}" COMMAND "${CMAKE_COMMAND}" -E copy "${prebuilt}" "${copy}"
                     DEPENDS "${prebuilt}" VERBATIM)
  add_custom_target(${target}_copy DEPENDS "${copy}")
  # An imported target: $<TARGET_FILE:${target}> and dependencies on it work as for a built one.
  add_library(${target} MODULE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${copy}")
  add_dependencies(${target} ${target}_copy)
endfunction()

# memlab_add_lab_program(<target> <lab> <sources> <library>): a program of the
# lab's (its grader, its profile driver), built beside the lab's builds.
function(memlab_add_lab_program target lab sources library)
  add_executable(${target} ${sources})
  target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${target} PRIVATE ${library})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/labs/${lab}")
  memlab_warnings(${target})
endfunction()

# memlab_add_grader_test(<lab> <name> <build target> EXPECT <id=verdict>...)
# A GPU test: grade <build target> and check the verdicts; skipped without a GPU.
# EXPECT all=pass means every check passes and every step is done.
function(memlab_add_grader_test lab name build)
  cmake_parse_arguments(PARSE_ARGV 3 T "" "" "EXPECT")
  string(REPLACE ";" "," expect "${T_EXPECT}")
  set(out "${CMAKE_BINARY_DIR}/test-results/${lab}.${name}")
  add_test(NAME ${lab}.${name}
    COMMAND "${MEMLAB_EXPECT_SCRIPT}"
      --grader "$<TARGET_FILE:${lab}_grader>" --build "$<TARGET_FILE:${build}>"
      --output-dir "${out}" --expect "${expect}")
  set_tests_properties(${lab}.${name} PROPERTIES
    LABELS gpu
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK gpu)   # one grader at a time: timings must not share the GPU
endfunction()

# memlab_add_sanitize_test(<lab> <name> <build target> EXPECT clean|hazards)
# A GPU test: run the lab's sanitize program on <build target> under
# compute-sanitizer racecheck; skipped without a GPU.
function(memlab_add_sanitize_test lab name build)
  cmake_parse_arguments(PARSE_ARGV 3 T "" "EXPECT" "")
  if(T_EXPECT STREQUAL "clean")
    set(pass "RACECHECK SUMMARY: 0 hazards")
  elseif(T_EXPECT STREQUAL "hazards")
    set(pass "RACECHECK SUMMARY: [1-9][0-9]* hazards")
  else()
    message(FATAL_ERROR "sanitize test ${lab}.${name}: EXPECT clean or EXPECT hazards")
  endif()
  add_test(NAME ${lab}.sanitize_${name}
    COMMAND "${MEMLAB_SANITIZE_SCRIPT}" --program $<TARGET_FILE:${lab}_sanitize> --library $<TARGET_FILE:${build}>)
  set_tests_properties(${lab}.sanitize_${name} PROPERTIES
    LABELS gpu
    PASS_REGULAR_EXPRESSION "${pass}"
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK gpu)
endfunction()

# memlab_add_grading_kit(<lab> <skeleton file name> <forbidden libraries>)
# What the instructors' grader (grader/grade.py) needs to compile a student's
# file exactly as the lab's own builds are compiled, and to grade it with the
# pristine grader and reference: build/grading/<lab>/kit.json. The flags come
# from the student build's own properties, so the two cannot drift apart.
function(memlab_add_grading_kit lab skeleton forbidden)
  get_property(lab_dir GLOBAL PROPERTY memlab_${lab}_dir)
  get_property(solution GLOBAL PROPERTY memlab_${lab}_solution)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${config}}")
  list(APPEND flags "-std=c++${CMAKE_CUDA_STANDARD}" "-Xcompiler=-fPIC" "-Xcompiler=-fvisibility=hidden")
  set(student ${lab}_student)
  string(JOIN "\",\"" flags_json ${flags})
  string(JOIN "\",\"" forbid_json ${forbidden})
  set(includes "$<JOIN:$<TARGET_PROPERTY:${student},INCLUDE_DIRECTORIES>,\",\">")
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/grading/${lab}/kit.json" CONTENT "{
  \"lab\": \"${lab}\",
  \"version\": \"${PROJECT_VERSION}\",
  \"source_dir\": \"${PROJECT_SOURCE_DIR}\",
  \"lab_dir\": \"${lab_dir}\",
  \"skeleton\": \"${skeleton}\",
  \"reference_source\": \"${solution}\",
  \"grader\": \"$<TARGET_FILE:${lab}_grader>\",
  \"reference\": \"$<TARGET_FILE:${lab}_reference>\",
  \"runner\": \"$<TARGET_FILE:${lab}_runner>\",
  \"table_objects\": [\"$<JOIN:$<TARGET_OBJECTS:${lab}_table>,\",\">\"],
  \"compiler\": \"${CMAKE_CUDA_COMPILER}\",
  \"compile_flags\": [\"${flags_json}\"],
  \"architectures\": \"$<TARGET_PROPERTY:${student},CUDA_ARCHITECTURES>\",
  \"include_dirs\": [\"${includes}\"],
  \"link_flags\": [\"-shared\", \"-cudart=shared\", \"-Xlinker=--no-undefined\"],
  \"forbid\": [$<$<BOOL:${forbidden}>:\"${forbid_json}\">],
  \"points\": \"${PROJECT_SOURCE_DIR}/grader/points/${lab}.txt\",
  \"cuobjdump\": \"${memlab_cuobjdump}\"
}
")
  add_custom_target(${lab}_grading DEPENDS ${lab}_grader ${lab}_runner ${lab}_reference ${lab}_table)
endfunction()

# memlab_add_lab(NAME <lab> TITLE <title> STEPS <count> SKELETON <file> SOLUTION <file>
#                TABLE <file> GRADER <file>...
#                [PROFILE <file> [PROFILE_VARIANT <name> <nvcc flag>...]] [SANITIZE <file>]
#                [FORBID <library>...] [SKELETON_FAILS <check id>...])
# TITLE, STEPS: what the grader and its report call the lab, and how many steps it has
#   (written into the grader as memlab::grading::lab, with the guide and the table's symbol).
# GRADER: the grader's checks first, then the files they stand on (fixtures, oracles, figures).
# PROFILE: a program that runs the student's build for `make <lab>-profile`.
# PROFILE_VARIANT: a second build of the same source (the student's file and
#   the reference) with extra nvcc flags, which the profile program runs beside
#   the usual build: lib<lab>_student_<name>.so, lib<lab>_reference_<name>.so.
#   Lab 2 builds its sums with -Xptxas -dlcm=cg (global loads not cached in L1).
# SANITIZE: a program that runs the student's shared-memory kernels on small
#   inputs, for `make <lab>-sanitize` (compute-sanitizer racecheck).
# FORBID: libraries a build of the lab may not use (of MEMLAB_FORBIDDABLE).
# SKELETON_FAILS: the checks the shipped skeleton must fail (default step1.correct).
function(memlab_add_lab)
  cmake_parse_arguments(PARSE_ARGV 0 LAB "" "NAME;TITLE;STEPS;SKELETON;SOLUTION;TABLE;PROFILE;SANITIZE"
                        "GRADER;SKELETON_FAILS;FORBID;PROFILE_VARIANT")
  set(lab ${LAB_NAME})
  foreach(required TITLE STEPS SKELETON SOLUTION TABLE GRADER)
    if(NOT LAB_${required})
      message(FATAL_ERROR "${lab}: memlab_add_lab needs ${required}")
    endif()
  endforeach()
  foreach(library IN LISTS LAB_FORBID)
    if(NOT library IN_LIST MEMLAB_FORBIDDABLE)
      message(FATAL_ERROR "${lab}: FORBID ${library}: a lab can forbid ${MEMLAB_FORBIDDABLE}")
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY memlab_labs ${lab})  # the registry (labs/CMakeLists.txt)
  set_property(GLOBAL PROPERTY memlab_${lab}_forbidden "${LAB_FORBID}")
  set_property(GLOBAL PROPERTY memlab_${lab}_dir "${CMAKE_CURRENT_SOURCE_DIR}")
  set_property(GLOBAL PROPERTY memlab_${lab}_solution "${LAB_SOLUTION}")

  # The table is compiled once; every build of the lab (and every submission the
  # instructors' grader compiles) links the same object.
  add_library(${lab}_table OBJECT "${LAB_TABLE}")
  target_include_directories(${lab}_table PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${lab}_table PRIVATE memlab::headers)
  set_target_properties(${lab}_table PROPERTIES CUDA_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden)

  memlab_add_lab_build(${lab}_student ${lab} "${CMAKE_CURRENT_SOURCE_DIR}/${LAB_SKELETON}")
  memlab_add_reference(${lab}_reference ${lab} "${LAB_SOLUTION}")

  set(symbol "memlab_${lab}_api")  # what a build of the lab exports (its TABLE defines it)
  memlab_add_lab_program(${lab}_grader ${lab} "${LAB_GRADER}" memlab::grading)
  # What the grader knows of its lab, from this call (the registry), not written again in grader.cpp.
  file(RELATIVE_PATH guide "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/README.md")
  string(REPLACE "\\" "\\\\" title "${LAB_TITLE}")
  string(REPLACE "\"" "\\\"" title "${title}")
  file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${lab}_info.cpp" CONTENT
"// Made by memlab_add_lab (cmake/Labs.cmake) from ${lab}'s CMakeLists.txt: edit that, not this.
#include \"memlab/grading/grader.hpp\"

const memlab::grading::LabInfo memlab::grading::lab = {\"${lab}\", \"${title}\", ${LAB_STEPS}, \"${guide}\",
                                                       \"${symbol}\"};
" @ONLY)
  target_sources(${lab}_grader PRIVATE "${CMAKE_CURRENT_BINARY_DIR}/${lab}_info.cpp")
  # The runner: the process a build's code runs in while it is graded
  # (common/memlab/grading/runner_main.cpp, made for this lab's Api).
  memlab_add_lab_program(${lab}_runner ${lab} "${PROJECT_SOURCE_DIR}/common/memlab/grading/runner_main.cpp;${PROJECT_SOURCE_DIR}/common/memlab/grading/registered_code.cpp" memlab_launch_watch)
  # The build's registration calls reach the runner's guard first (registered_code.hpp): the
  # two symbols the runner exports.
  target_link_options(${lab}_runner PRIVATE "LINKER:--export-dynamic-symbol=__cudaRegisterFatBinary"
                      "LINKER:--export-dynamic-symbol=__cudaUnregisterFatBinary")
  target_compile_definitions(${lab}_runner PRIVATE
    MEMLAB_LAB_HEADER="grading/${lab}_api.hpp" MEMLAB_LAB_API=${lab}::Api MEMLAB_LAB_SYMBOL="${symbol}")
  target_include_directories(${lab}_runner PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${lab}_runner PRIVATE ${CMAKE_DL_LIBS})
  # The grader starts the reference build and the runner from beside itself.
  add_dependencies(${lab}_grader ${lab}_reference ${lab}_runner)

  if(LAB_PROFILE)
    memlab_add_lab_program(${lab}_profile ${lab} "${LAB_PROFILE}" memlab::cuda)
    if(LAB_PROFILE_VARIANT)
      list(POP_FRONT LAB_PROFILE_VARIANT variant)
      if(NOT variant OR NOT LAB_PROFILE_VARIANT)
        message(FATAL_ERROR "${lab}: PROFILE_VARIANT needs a name and at least one nvcc flag")
      endif()
      # The same sources as the usual builds, compiled with the variant's flags;
      # the profile program finds them beside the usual ones by their name.
      memlab_add_lab_build(${lab}_student_${variant} ${lab} "${CMAKE_CURRENT_SOURCE_DIR}/${LAB_SKELETON}")
      target_compile_options(${lab}_student_${variant} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${LAB_PROFILE_VARIANT}>")
      memlab_add_reference(${lab}_reference_${variant} ${lab} "${LAB_SOLUTION}" ${LAB_PROFILE_VARIANT})
      add_dependencies(${lab}_profile ${lab}_student_${variant} ${lab}_reference_${variant})
      list(JOIN LAB_PROFILE_VARIANT " " flags)
      target_compile_definitions(${lab}_profile PRIVATE
        MEMLAB_PROFILE_VARIANT="${variant}" MEMLAB_PROFILE_VARIANT_FLAGS="${flags}")
    endif()
  elseif(LAB_PROFILE_VARIANT)
    message(FATAL_ERROR "${lab}: PROFILE_VARIANT needs PROFILE")
  endif()
  if(LAB_SANITIZE)
    memlab_add_lab_program(${lab}_sanitize ${lab} "${LAB_SANITIZE}" memlab::cuda)
    memlab_add_sanitize_test(${lab} reference_is_race_free ${lab}_reference EXPECT clean)
  endif()

  # `cmake --build build --target lab1` builds what `make lab1` runs, and nothing else.
  add_custom_target(${lab})
  add_dependencies(${lab} ${lab}_grader ${lab}_student ${lab}_reference)

  memlab_add_grading_kit(${lab} "${LAB_SKELETON}" "${LAB_FORBID}")

  # The grader's own input checks, which run before it looks for a GPU.
  add_test(NAME ${lab}.grader_requires_a_student_build COMMAND ${lab}_grader)
  add_test(NAME ${lab}.grader_rejects_steps_out_of_range
    COMMAND ${lab}_grader --student nothing.so --steps 99)
  set_tests_properties(${lab}.grader_requires_a_student_build PROPERTIES
    LABELS host PASS_REGULAR_EXPRESSION "--student <the student's build> is required")
  set_tests_properties(${lab}.grader_rejects_steps_out_of_range PROPERTIES
    LABELS host PASS_REGULAR_EXPRESSION "--steps must be between 1 and")

  memlab_add_grader_test(${lab} reference_passes ${lab}_reference EXPECT all=pass)
  # Once a student has solved step 1 in the skeleton, this test reports that progress as a failure.
  if(NOT LAB_SKELETON_FAILS)
    set(LAB_SKELETON_FAILS step1.correct)
  endif()
  list(TRANSFORM LAB_SKELETON_FAILS APPEND "=fail")
  memlab_add_grader_test(${lab} shipped_skeleton_fails_step1 ${lab}_student EXPECT ${LAB_SKELETON_FAILS})
endfunction()

# memlab_add_mutant(LAB <lab> NAME <name> FIND <text> REPLACE <text>
#                   EXPECT <id=verdict>... [SANITIZE clean|hazards] | BUILD_FAILS <regex>)
#
# A wrong or slow variant of the reference solution: the reference with one
# piece of text, which must occur exactly once, replaced. The grader must reach
# the verdicts in EXPECT. Deriving variants from the reference keeps them
# honest: each differs from a passing solution by exactly the mistake it names.
# SANITIZE: also run the lab's sanitize program on it, expecting that outcome.
# BUILD_FAILS: the variant must not build, with a message matching <regex>
#   (a forbidden library, say); a host test, since building needs no GPU.
function(memlab_add_mutant)
  cmake_parse_arguments(PARSE_ARGV 0 M "" "LAB;NAME;FIND;REPLACE;SANITIZE;BUILD_FAILS" "EXPECT")
  get_property(solution GLOBAL PROPERTY memlab_${M_LAB}_solution)
  if(NOT solution)
    message(FATAL_ERROR "mutant ${M_LAB}.${M_NAME}: no lab ${M_LAB} (memlab_add_lab must come first)")
  endif()
  file(READ "${solution}" text)
  string(FIND "${text}" "${M_FIND}" first)
  string(FIND "${text}" "${M_FIND}" last REVERSE)
  if(first EQUAL -1)
    message(FATAL_ERROR "mutant ${M_LAB}.${M_NAME}: '${M_FIND}' is not in ${solution} any more")
  elseif(NOT first EQUAL last)
    message(FATAL_ERROR "mutant ${M_LAB}.${M_NAME}: '${M_FIND}' occurs more than once in ${solution}")
  endif()
  string(REPLACE "${M_FIND}" "${M_REPLACE}" text "${text}")
  set(mutant "${CMAKE_BINARY_DIR}/mutants/${M_LAB}/${M_NAME}.cu")
  file(WRITE "${mutant}.new" "${text}")
  configure_file("${mutant}.new" "${mutant}" COPYONLY)  # rewritten only when it changes
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${solution}")

  set(target ${M_LAB}_mutant_${M_NAME})
  memlab_add_lab_build(${target} ${M_LAB} "${mutant}")
  if(M_BUILD_FAILS)
    set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL ON)
    add_test(NAME ${M_LAB}.mutant_${M_NAME}_is_rejected
      COMMAND "${CMAKE_COMMAND}" --build "${CMAKE_BINARY_DIR}" --target ${target})
    set_tests_properties(${M_LAB}.mutant_${M_NAME}_is_rejected PROPERTIES
      LABELS host PASS_REGULAR_EXPRESSION "${M_BUILD_FAILS}")
    return()
  endif()
  memlab_add_grader_test(${M_LAB} mutant_${M_NAME} ${target} EXPECT ${M_EXPECT})
  if(M_SANITIZE)
    memlab_add_sanitize_test(${M_LAB} mutant_${M_NAME} ${target} EXPECT ${M_SANITIZE})
  endif()
endfunction()
