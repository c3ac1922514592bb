/// @file registered_code.hpp
/// @brief The runner's guard on the GPU code a build registers.
///
/// The method checks (machine_code.hpp) read nvcc's own device code for the
/// student's file, kept by grade.py's compile. What the GPU runs is what the
/// build hands the CUDA runtime when it is loaded: one fatbin per source file,
/// through `__cudaRegisterFatBinary`. A build can hand it other bytes (nvcc's
/// fatbin symbol renamed, or the fatbin written over before it is registered:
/// red team 14), and then the code read is not the code run. The runner
/// defines `__cudaRegisterFatBinary` itself, so a build loaded into it calls
/// this guard first: with allow_only() set, a fatbin that is not byte for byte
/// one of the allowed (the file's kept device code and the lab table's) ends
/// the runner before the build's code runs on: the lab grader then names the
/// build "not loadable", with the message printed here. What is allowed is
/// registered from a private copy, so changing the build's own bytes or its
/// wrapper after registration changes nothing either; and a build that points
/// a handle or the copy's wrapper elsewhere before the runtime loads it is
/// refused once it is loaded (close_registrations).
///
/// Runs in the student's runner, whose code could in principle find and undo
/// this guard in memory (grader/README.md, threat model): it closes the ways
/// found, it does not make the process trusted.
#pragma once

#include <string>

namespace memlab::grading {

/// From now on, a fatbin registered must be one of @p fatbins (whole fatbins,
/// one after another, as nvcc writes them); any other ends this process with
/// exit code 2. Throws std::invalid_argument if @p fatbins holds no fatbin.
void allow_only(const std::string& fatbins);

/// The build is loaded: any later registration ends this process, and so does
/// a handle or wrapper of an earlier one that the build's constructors changed
/// (red team 17). Called after dlopen and before the runtime first loads the
/// registered code (the runner asks for eager module loading, so that happens
/// when its context is made, before the build's code runs again).
void close_registrations();

/// Ends this process if the private wrapper of a registration let through now
/// points elsewhere: checked again before every call the runner serves, in case
/// a thread of the build changed one after close_registrations(). (The handles
/// are the runtime's, which may change them once it loads the modules.)
void check_registrations();

/// How many fatbins this process has registered and not unregistered so far,
/// the runner's own included, guarded or not: as many modules as the runtime
/// loads for them (a build may register a fatbin and unregister it before it
/// is loaded, then load a module of its own; launch_watch.hpp).
int fatbins_registered();

/// Whether @p image is a fatbin this process registered through the runner's
/// export (the wrapper handed to the runtime, or its data), still holding the
/// bytes it held when registered: the runtime loads each registered fatbin from
/// it, and any other image a module is loaded from is code of the build's own
/// (launch_watch.hpp).
bool registered_image(const void* image);

}  // namespace memlab::grading
