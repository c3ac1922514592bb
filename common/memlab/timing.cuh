/// @file timing.cuh
/// @brief Timing GPU work with CUDA events: warm-up, L2 flush, repeated samples,
/// and interleaved comparison of two implementations.
///
/// A kernel's time depends on where its data is when it starts. Launched twice
/// over the same arrays, the second launch may find them in L2 and run faster
/// than DRAM allows. Timings here are taken in one of two cache states:
///  - Cache::cold: L2 is flushed (outside the timed window) before every sample,
///    so each sample reads its inputs from DRAM;
///  - Cache::warm: samples follow each other, so data left in L2 is reused.
#pragma once

#include "memlab/resources.cuh"
#include "memlab/stats.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace memlab {

/// GPU work to time: enqueues kernels on the given stream and returns without waiting.
using Work = std::function<void(cudaStream_t)>;

/// Where the data is when a timed sample starts.
enum class Cache {
  cold,  ///< L2 flushed before each sample
  warm   ///< samples run back to back; L2 keeps what the previous one left
};

/// How many samples to take and in which cache state.
struct TimingOptions {
  int warmups = 2;             ///< untimed runs first (module load, clocks ramping up)
  int samples = 15;            ///< timed runs; their median is the result
  Cache cache = Cache::cold;   ///< cache state of each sample
};

/// Result of KernelTimer::compare(): both sets of samples and their per-pair ratios.
struct Interleaved {
  std::vector<double> a_ms;    ///< samples of the first work
  std::vector<double> b_ms;    ///< samples of the second work, paired with a_ms
  double median_ratio = 0.0;   ///< median over pairs of a_ms[i] / b_ms[i]
};

/// Evicts the arrays under test from L2 by reading a scratch buffer twice the
/// size of L2.
///
/// Reading rather than writing matters: a flush that writes leaves L2 full of
/// dirty lines, and the next kernel (the one being timed) then pays to write
/// them back to DRAM. After a read flush, L2 holds clean lines of the scratch
/// buffer, which can be dropped for free.
class L2Flusher {
 public:
  /// Allocates (and zeroes, once) 2 x @p l2_bytes of device memory.
  explicit L2Flusher(std::size_t l2_bytes);
  /// Enqueues the flush on @p stream.
  void flush(cudaStream_t stream);
  /// Size of the scratch buffer in bytes.
  std::size_t bytes() const { return scratch_.bytes(); }

 private:
  DeviceBuffer<uint4> scratch_;
  DeviceBuffer<unsigned int> sink_;  // keeps the compiler from discarding the reads
  int blocks_ = 0;                   // enough blocks to keep every SM reading
};

/// A clock for work that CUDA events on this process's stream cannot see: work
/// done by another process (the grading runner, common/memlab/grading/remote.hpp).
class OutsideClock {
 public:
  virtual ~OutsideClock() = default;
  /// Starts measuring.
  virtual void start() = 0;
  /// Milliseconds of outside work since start(), or a negative number if there was none.
  virtual double stop_ms() = 0;
};

/// KernelTimer uses @p clock's figure for work that ran outside this process
/// (nullptr: events only).
void use_outside_clock(OutsideClock* clock);

/// Times Work on one stream with a pair of events (or the outside clock, for
/// work done by another process).
class KernelTimer {
 public:
  /// Times work on @p stream; @p l2_bytes sizes the L2 flush.
  KernelTimer(cudaStream_t stream, std::size_t l2_bytes);

  /// The stream work is enqueued on.
  cudaStream_t stream() const { return stream_; }
  /// Flushes L2 now (enqueued on the timer's stream).
  void flush_l2() { flusher_.flush(stream_); }

  /// One sample in milliseconds: flushes L2 first when @p cache is Cache::cold.
  double time_ms(const Work& work, Cache cache);
  /// options.warmups untimed runs, then options.samples timed ones.
  std::vector<double> samples_ms(const Work& work, const TimingOptions& options);
  /// Times @p a and @p b alternately, pair by pair (a then b, then b then a, ...),
  /// so slow drifts of the clock or the machine affect both alike; the result's
  /// median_ratio is the median of the per-pair ratios time(a) / time(b).
  Interleaved compare(const Work& a, const Work& b, const TimingOptions& options);

 private:
  cudaStream_t stream_;
  L2Flusher flusher_;
  Event start_;
  Event stop_;
};

/// Enqueues @p count runs of @p work back to back on @p stream, each between its
/// own pair of events, then waits and returns each run's milliseconds. Nothing
/// waits between runs, so they follow each other as they would untimed, and a
/// run finds in L2 whatever the one before it left there. Behind a hold_stream(),
/// @p all_queued_first (when given) says whether every run was enqueued before
/// the first began: false when @p work waits for the GPU before it returns.
std::vector<double> time_sequence(const Work& work, int count, cudaStream_t stream,
                                  bool* all_queued_first = nullptr);

/// Holds @p stream for @p microseconds (a host callback that sleeps), so that
/// work enqueued right after this call is all queued before any of it starts.
/// Without it, kernels of a few microseconds can finish faster than the host
/// enqueues the next one, and the host's delay lands between the events around
/// them. Enqueued; returns at once.
void hold_stream(cudaStream_t stream, int microseconds);

/// Bytes per second expressed in GB/s (10^9 bytes per second), from bytes and milliseconds.
inline double gigabytes_per_second(double bytes, double milliseconds) {
  return bytes / (milliseconds * 1e-3) / 1e9;
}

/// Floating-point operations per second in GFLOP/s, from operations and milliseconds.
inline double gigaflops_per_second(double operations, double milliseconds) {
  return gigabytes_per_second(operations, milliseconds);  // the same arithmetic, in other units
}

}  // namespace memlab
