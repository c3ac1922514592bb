// Lab 1's arrays and the runs of vector_add on them (arrays.hpp).
#include "arrays.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/device_random.cuh>
#include <memlab/grading/phases.hpp>
#include <memlab/parallel.hpp>
#include <memlab/report.hpp>
#include <memlab/by_gpu.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>

namespace lab1::checks {

namespace remote = memlab::grading::remote;
using memlab::format_text;

std::size_t large_footprint() {
  const memlab::DeviceFacts& gpu = grading::device();
  return memlab::by_gpu::vector_add_timing_bytes(gpu.l2_bytes, gpu.global_memory_bytes);
}

// The arrays every check shares, reallocated when a check needs more elements.
Arrays& arrays(std::size_t elements) {
  static std::unique_ptr<Arrays> shared;
  if (!shared || shared->capacity() < elements) {
    shared.reset();  // free the old arrays first: device memory may be tight
    shared = std::make_unique<Arrays>(elements, grading::seed());
  }
  return *shared;
}

// Runs impl.vector_add on n elements and checks c[0..n) and the guard zone after
// it. Returns what is wrong (empty if nothing) and sets the hint that fits.
std::string check_vector_add(const lab1::Api& impl, std::size_t n) {
  Arrays& arr = arrays(n);
  arr.poison_c();
  // The guard zone gets a pattern of this run's own: a stray store cannot restore a value known in advance.
  const std::uint32_t guard = grading::poison(arr.c() + n, memlab::kGuardElements * sizeof(float));
  impl.vector_add(arr.a(), arr.b(), arr.c(), n, grading::stream());
  MEMLAB_CHECK(cudaStreamSynchronize(grading::stream()));
  MEMLAB_CHECK(cudaGetLastError());

  if (const auto past_end = grading::first_changed(arr.c() + n, memlab::kGuardElements * sizeof(float), guard)) {
    grading::hint("Every store needs the bound i < n: the last block usually has threads past the end.");
    return format_text("wrote c[%zu], past the end of c (n = %zu)", n + *past_end, n);
  }
  std::vector<float> got = arr.c_buffer().to_host(n, grading::stream());
  std::vector<float> expected(n);
  memlab::parallel_ranges(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) expected[i] = arr.expected(i);
  });
  const memlab::Comparison result = memlab::compare(got, expected, memlab::default_tolerance<float>());
  if (result.ok()) return "";
  if (result.unwritten == n) {
    grading::hint("Is the kernel launched (with at least one block and one thread), and does it store c[i]?");
  } else if (result.unwritten == result.mismatches && result.first.front().index > 0) {
    grading::hint(format_text("c[%zu] onwards was never written: the launch covers too few threads. "
                              "Launch ceil(n / threads per block) blocks, or loop with a grid stride.",
                              result.first.front().index));
  } else {
    grading::hint("Check the index: thread i must read a[i] and b[i] and write c[i].");
  }
  return result.describe("c");
}

// A timed run of vector_add on n elements that is checked: fresh inputs and c
// poisoned with a new pattern before it, and after it the guard zone past c[n]
// and 64 runs of 64 elements of c at places chosen after the run (the first and
// last among them) compared with a + b. Skipped or unfinished work leaves poison.
grading::CheckedWork checked_vector_add(const lab1::Api& impl, Arrays& arr, std::size_t n) {
  struct State {
    std::uint32_t pattern = 0;
    std::mt19937_64 places{grading::unpredictable_seed()};
  };
  auto state = std::make_shared<State>();
  grading::CheckedWork run;
  run.prepare = [&arr, n, state]() {
    arr.refill(grading::unpredictable_seed());
    state->pattern = grading::poison(arr.c(), (n + memlab::kGuardElements) * sizeof(float));
  };
  run.work = [&impl, &arr, n](cudaStream_t s) {
    impl.vector_add(arr.a(), arr.b(), arr.c(), n, s);
  };
  run.verify = [&arr, n, state]() -> std::string {
    if (!grading::still_poisoned(arr.c() + n, memlab::kGuardElements * sizeof(float), state->pattern)) {
      return format_text("wrote past c[%zu], the end of c", n - 1);
    }
    constexpr std::size_t kChunk = 64;
    constexpr int kChunks = 64;
    std::vector<float> got(kChunk);
    for (const std::size_t start : grading::sample_starts(n, kChunk, kChunks, state->places)) {
      const std::size_t count = std::min(kChunk, n - start);
      MEMLAB_CHECK(cudaMemcpy(got.data(), arr.c() + start, count * sizeof(float), cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < count; ++i) {
        const float expected = arr.expected(start + i);
        if (!(std::fabs(got[i] - expected) <= 1e-6f * (1.0f + std::fabs(expected)))) {
          return format_text("c[%zu] = %g, expected %g", start + i, got[i], expected);
        }
      }
    }
    return "";
  };
  return run;
}

// lab1.cuh promises arrays of more than 2^31 elements: an int index wraps there.
// Checked where the GPU has the memory (3 x 8.6 GB), else said plainly. Not
// past 2^32, where an unsigned index wraps: a correct kernel of one block
// (about 7 GB/s) would take some 7 s over 51 GB, past make grade's 5 s limit
// on one call, and lose the correctness it has.
std::string beyond_int_range() {
  const grading::Phase phase("lab1_beyond_int_range");
  const std::size_t n = memlab::by_gpu::kBeyond31Bits;
  const std::size_t needed = 3 * (n + memlab::kGuardElements) * sizeof(float);
  const std::string no_room = grading::no_room_for("n > 2^31", needed);
  if (!no_room.empty()) return no_room;
  Arrays huge(n, grading::seed() + 77);
  const grading::CheckedWork run = checked_vector_add(student(), huge, n);
  run.prepare();
  run.work(grading::stream());
  const std::string problem = run.verify();
  if (!problem.empty()) {
    grading::hint("Past 2^31 elements an int index wraps around: compute i in std::size_t "
                  "(blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x).");
    throw std::runtime_error(format_text("n = %zu (more than 2^31): %s", n, problem.c_str()));
  }
  return format_text("and %zu", n);
}

}  // namespace lab1::checks
