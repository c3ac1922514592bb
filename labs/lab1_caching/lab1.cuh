/// @file lab1.cuh
/// @brief Lab 1, caching observed with vector_add: the functions you write in
/// vector_add.cu, which the grader calls.
///
/// Read this file; do not edit it. Everything you write goes in vector_add.cu. The
/// class grader (`make grade`) compiles your vector_add.cu against the course's copy
/// of this header, so a change here would change what `make lab1` measures
/// but not your grade.
///
/// Each function launches its own kernels, from the thread that calls it: the
/// grader watches which kernels each call launches, and a launch from a thread
/// of your own fails the check that made the call.
///
/// Every array the grader passes starts an allocation of its own, aligned at least
/// as cudaMalloc aligns (256 bytes): a vector load (float4, double2) from an array's
/// start needs no alignment test.
///
/// Sizes are element counts (std::size_t: arrays larger than 2^31 elements must
/// work, and the grader checks one where the GPU has the memory); footprints are
/// bytes. Functions that take a stream should enqueue their work on it: the
/// grader's clock counts work on any stream of your process until it is done.
/// @p stream is a non-blocking stream: work enqueued anywhere else (on the
/// default stream by cudaMemsetAsync or cudaMemcpyAsync without a stream, or by
/// a launch with none; on a stream of your own) is not ordered with it, and the
/// grader's correctness checks hold @p stream, the default stream and each
/// non-blocking stream your code made in earlier calls for a different time,
/// in an order that changes from call to call, so work that depends across
/// them comes out wrong there. They also hold a stream for longer still
/// right after each event recorded on it, so work that waits for an event
/// recorded before what it needs runs first.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

/// Lab 1, caching observed with vector_add: what the student writes and the grader calls (guide: \ref lab1).
namespace lab1 {

/// Step 1: c[i] = a[i] + b[i] for every i < n, enqueued on @p stream. Every
/// call at one n launches the same kernels, in the same order (its grid may
/// change): step 2's grader compares time_launches' launches with its own calls.
/// Returns without waiting for the GPU. Must write c[0..n-1] and nothing past it.
void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);

/// Step 2: launches vector_add @p launches times back to back on @p stream over
/// the same arrays, and returns how long each launch took in milliseconds,
/// measured with CUDA events (a pair around each launch). The grader flushes L2
/// just before calling this, so the first launch finds no data in the cache,
/// and holds @p stream for a while, so that the launches queue up behind the
/// hold: record every event and launch before waiting for any (a wait first
/// drains the hold, and the events then count the GPU waiting for the host).
std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n,
                                 int launches, cudaStream_t stream);

/// Step 3: the footprints (bytes of a, b and c together) to measure on a GPU
/// whose L2 cache holds @p l2_bytes: at least two well below it (between an
/// eighth and a half of L2) and at least two well above it (twice L2 or more).
std::vector<std::size_t> choose_footprints(std::size_t l2_bytes);

/// Step 4: your prediction, written before you look at step 3's table: at this
/// footprint, will launches 2 to 5 run clearly faster than launch 1?
bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes);

}  // namespace lab1
