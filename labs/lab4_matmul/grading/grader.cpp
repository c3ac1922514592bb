// Lab 4 grader: checks matmul.cu step by step, beside the reference solution,
// on this machine's GPU, with cuBLAS (full FP32, no TF32) as the yardstick.
// Run it through `make lab4`.
//
// Every threshold below was chosen from measurements or from the error bounds
// of the arithmetic; docs/measurements/lab4-5.md has the runs and the reasoning.

#include "lab4.cuh"
#include "seed_bugs.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/device_random.cuh>
#include <memlab/grading/catch2.hpp>
#include <memlab/grading/cublas.hpp>
#include <memlab/grading/grader.hpp>
#include <memlab/grading/speed.hpp>
#include <memlab/parallel.hpp>
#include <memlab/random.hpp>
#include <memlab/report.hpp>
#include <memlab/resources.cuh>
#include <memlab/stats.hpp>
#include <memlab/verify.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>

namespace grading = memlab::grading;
using memlab::format_text;

namespace {

// Every timing check: the student's kernel may take at most this many times the
// reference's time (median of 21 interleaved pairs, L2 flushed before each run,
// measured again once before failing).
constexpr double kSpeedLimit = grading::kSpeedLimit;

// Steps 1 to 4 are timed at this width (48 MB of operands: several times L2 on
// current GPUs, and 256 x 256 = 65536 blocks of 16 x 16, hundreds per SM).
constexpr int kTimingWidth = 2048;
// Step 6 at this one, where cuBLAS runs near its peak.
constexpr int kFastTimingWidth = 4096;
// Up to this width the grader computes the exact product on the CPU; above it,
// the reference's tiled kernel is the yardstick (its own accuracy is checked
// against the exact product at the smaller widths).
constexpr int kLargestExactWidth = 1024;

const std::vector<int> kAnyWidths = {1, 15, 16, 17, 100, 1024};
const std::vector<int> kTileMultiples = {16, 32, 48, 512, 1024};
const std::vector<int> kOtherWidths = {1, 15, 17, 100, 1000, 1023};
const std::vector<int> kFastWidths = {1, 17, 100, 129, 1000, 1024};

using Multiply = std::function<void(const float*, const float*, float*, int, cudaStream_t)>;

const lab4::Api& student() { return grading::student<lab4::Api>(); }
const lab4::Api& reference() { return grading::reference<lab4::Api>(); }

double flops(int width) { return 2.0 * width * static_cast<double>(width) * width; }
double gflops(int width, double ms) { return flops(width) / (ms * 1e-3) / 1e9; }

// ---- Operands and the right answer --------------------------------------------

// Elements allocated after c: a kernel whose blocks overhang the matrix by up to
// 128 rows writes there, not into other allocations, and the check sees it.
std::size_t slack_elements(int width) { return std::size_t{128} * (width + 128) + memlab::kGuardElements; }

// a and b: seeded random values in [-1, 1]; c: poisoned before each run, with slack.
struct Operands {
  explicit Operands(int side)
      : width(side),
        count(static_cast<std::size_t>(side) * side),
        a(count),
        b(count),
        c(count + slack_elements(side)) {
    fill(grading::seed() + 1, grading::seed() + 2);
  }
  // a and b from these seeds (the timed runs give each run its own).
  void fill(std::uint64_t seed_a, std::uint64_t seed_b) {
    memlab::fill_random(a.data(), count, seed_a, -1.0, 1.0, grading::stream());
    memlab::fill_random(b.data(), count, seed_b, -1.0, 1.0, grading::stream());
  }
  int width;
  std::size_t count;
  memlab::DeviceBuffer<float> a, b, c;
  std::vector<float> expected;  // the right c, row-major, rounded to float once
  bool expected_is_exact = false;
};

// c = a x b computed on the CPU in double: exact to float's precision.
void compute_exact(Operands& m) {
  const std::vector<float> a = memlab::random_values<float>(m.count, grading::seed() + 1);
  const std::vector<float> b = memlab::random_values<float>(m.count, grading::seed() + 2);
  const auto w = static_cast<std::size_t>(m.width);
  std::vector<double> exact(m.count, 0.0);
  memlab::parallel_for(w, [&](std::size_t row) {
    double* out = &exact[row * w];
    for (std::size_t k = 0; k < w; ++k) {
      const double scale = a[row * w + k];
      const float* b_row = &b[k * w];
      for (std::size_t col = 0; col < w; ++col) out[col] += scale * b_row[col];
    }
  });
  m.expected.assign(exact.begin(), exact.end());
  m.expected_is_exact = true;
}

// c from the reference's tiled kernel: the yardstick above kLargestExactWidth.
void compute_with_reference(Operands& m) {
  reference().matmul_tiled(m.a.data(), m.b.data(), m.c.data(), m.width, grading::stream());
  m.expected = m.c.to_host(m.count, grading::stream());
  m.expected_is_exact = false;
}

Operands& operands(int width) {
  static std::map<int, std::unique_ptr<Operands>> cache;
  std::unique_ptr<Operands>& slot = cache[width];
  if (!slot) {
    slot = std::make_unique<Operands>(width);
    if (width <= kLargestExactWidth) {
      compute_exact(*slot);
    } else {
      compute_with_reference(*slot);
    }
  }
  return *slot;
}

// Each element of c is a sum of width products of values in [-1, 1] with mean
// zero: summation_tolerance's bound for float, twice over when the yardstick
// is itself a float result. A missing or doubled product is off by about 0.25.
memlab::Tolerance product_tolerance(const Operands& m) {
  memlab::Tolerance tolerance = memlab::summation_tolerance<float>(static_cast<std::size_t>(m.width), 1.0);
  if (!m.expected_is_exact) tolerance.absolute *= 2;
  return tolerance;
}

// Runs multiply at @p width and checks every element of c, and that nothing
// after c was written. Returns "" if all is right, else what is wrong.
std::string check_product(const Multiply& multiply, int width) {
  Operands& m = operands(width);
  m.fill(grading::seed() + 1, grading::seed() + 2);  // the operands m.expected is for (timed runs change them)
  m.c.fill_bytes(memlab::kPoisonByte, grading::stream());
  multiply(m.a.data(), m.b.data(), m.c.data(), width, grading::stream());
  MEMLAB_CHECK(cudaStreamSynchronize(grading::stream()));
  MEMLAB_CHECK(cudaGetLastError());
  const std::vector<float> all = m.c.to_host(m.c.size(), grading::stream());
  if (const auto past_end = memlab::first_overwritten(all, m.count)) {
    return format_text("width %d: wrote %zu elements past the end of c (threads outside the matrix must not write)",
                       width, *past_end + 1);
  }
  const std::vector<float> got(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(m.count));
  const memlab::Comparison result =
      memlab::compare(got, m.expected, product_tolerance(m), memlab::MatrixShape{m.count / width, std::size_t(width)});
  return result.ok() ? "" : format_text("width %d: ", width) + result.describe("c");
}

std::string check_widths(const Multiply& multiply, const std::vector<int>& widths) {
  for (int width : widths) {
    std::string problem = check_product(multiply, width);
    if (!problem.empty()) return problem;
  }
  return "";
}

// "width 16: c: 256 of 256 elements wrong", without the mismatches that follow.
std::string summary_of(const std::string& problem) {
  if (problem.empty()) return "passed";
  return problem.substr(0, problem.find("; first:"));
}

std::string list(const std::vector<int>& widths) {
  std::string text;
  for (int width : widths) text += (text.empty() ? "" : ", ") + std::to_string(width);
  return text;
}

memlab::Work work_of(const Multiply& multiply, int width) {
  Operands& m = operands(width);
  return [&m, multiply](cudaStream_t s) { multiply(m.a.data(), m.b.data(), m.c.data(), m.width, s); };
}

// A timed run of @p multiply that is checked: before it, new a and b from the
// run's own seeds and all of c and the slack after it poisoned with a new
// pattern; after it, the slack and 64 elements of c chosen after the run (the
// first and the last among them), each recomputed on the CPU in double. A run
// skipped, cached from earlier operands, or left unfinished fails.
grading::CheckedWork checked_work(const Multiply& multiply, int width) {
  struct Run {
    std::uint64_t seed_a = 0, seed_b = 0;
    std::uint32_t pattern = 0;
    std::mt19937_64 places{grading::unpredictable_seed()};
  };
  auto run = std::make_shared<Run>();
  Operands& m = operands(width);
  grading::CheckedWork checked;
  checked.prepare = [&m, run]() {
    run->seed_a = grading::unpredictable_seed();
    run->seed_b = run->seed_a + 1;
    m.fill(run->seed_a, run->seed_b);
    run->pattern = grading::poison(m.c.data(), m.c.bytes());
  };
  checked.work = work_of(multiply, width);
  checked.verify = [&m, run]() -> std::string {
    if (!grading::still_poisoned(m.c.data() + m.count, m.c.bytes() - m.count * sizeof(float), run->pattern)) {
      return format_text("width %d: wrote past the end of c", m.width);
    }
    const auto w = static_cast<std::size_t>(m.width);
    constexpr int kElements = 64;
    const std::vector<std::size_t> places = grading::sample_starts(m.count, 1, kElements, run->places);
    std::vector<float> got(places.size()), expected(places.size());
    for (std::size_t i = 0; i < places.size(); ++i) {
      MEMLAB_CHECK(cudaMemcpy(&got[i], m.c.data() + places[i], sizeof(float), cudaMemcpyDeviceToHost));
    }
    memlab::parallel_for(places.size(), [&](std::size_t i) {
      const std::size_t row = places[i] / w, col = places[i] % w;
      double sum = 0.0;
      for (std::size_t k = 0; k < w; ++k) {
        sum += static_cast<double>(memlab::random_value<float>(run->seed_a, row * w + k, -1.0, 1.0)) *
               memlab::random_value<float>(run->seed_b, k * w + col, -1.0, 1.0);
      }
      expected[i] = static_cast<float>(sum);
    });
    const memlab::Comparison result =
        memlab::compare(got, expected, memlab::summation_tolerance<float>(w, 1.0));
    if (result.ok()) return "";
    const std::size_t i = result.first.front().index;
    return format_text("width %d: c[%zu][%zu] = %g, expected %g", m.width, places[i] / w, places[i] % w, got[i],
                       expected[i]);
  };
  return checked;
}

// ---- cuBLAS, the yardstick ----------------------------------------------------

// cuBLAS SGEMM's speed at @p width, measured once (full FP32: the handle's
// pedantic math mode, no TF32).
double cublas_milliseconds(int width) {
  static std::map<int, double> measured;
  auto found = measured.find(width);
  return found != measured.end() ? found->second : measured[width] = grading::median_milliseconds(work_of(&grading::matmul, width));
}

// ---- The roofline --------------------------------------------------------------

// One kernel on the roofline plot: FLOPs per byte its threads ask global memory
// for, and the GFLOP/s it reached.
struct RooflinePoint {
  std::string kernel;
  double intensity;
  double gflops;
  int width;
};

// Rewrites roofline.csv with @p point added (replacing an earlier point of the
// same kernel), so the plot shows every kernel timed so far.
void add_to_roofline(const RooflinePoint& point) {
  static std::vector<RooflinePoint> points;
  auto same = std::find_if(points.begin(), points.end(), [&](const RooflinePoint& p) { return p.kernel == point.kernel; });
  if (same != points.end()) {
    *same = point;
  } else {
    points.push_back(point);
  }
  std::ofstream csv(grading::output_path("roofline.csv"));
  csv << "# gpu: " << grading::device().name << "\n"
      << "# copy_gbps: " << format_text("%.0f", grading::ceilings().copy_gbps) << "\n"
      << "# fp32_gflops: " << format_text("%.0f", grading::ceilings().fp32_gflops) << "\n"
      << "kernel,intensity_flop_per_byte,gflops,width\n";
  for (const RooflinePoint& p : points) {
    csv << p.kernel << "," << p.intensity << "," << format_text("%.0f", p.gflops) << "," << p.width << "\n";
  }
}

// Where @p intensity (FLOP per byte) meets the roofs: the GFLOP/s the measured
// copy bandwidth could feed, if every byte came from DRAM, and the compute ceiling.
std::string roofline_text(const std::string& kernel, double intensity, double achieved) {
  const double fed = intensity * grading::ceilings().copy_gbps;
  const double peak = grading::ceilings().fp32_gflops;
  return format_text(
      "  %s asks global memory for %.3g FLOP per byte.\n"
      "  If every byte came from DRAM at %.0f GB/s, that would allow %.0f GFLOP/s (the compute\n"
      "  ceiling is %.0f). It reached %.0f GFLOP/s.",
      kernel.c_str(), intensity, grading::ceilings().copy_gbps, std::min(fed, peak), peak, achieved);
}

// Times the student's @p kernel against the reference's at @p width after
// checking it there, records the point, and returns the comparison.
grading::SpeedComparison time_against_reference(const Multiply& mine, const Multiply& theirs, int width) {
  const std::string problem = check_product(mine, width);
  if (!problem.empty()) throw std::runtime_error("wrong at the timing width: " + problem);
  return grading::compare_speed(checked_work(mine, width), checked_work(theirs, width), kSpeedLimit);
}

void record_speed(const grading::SpeedComparison& result, int width, const std::string& prefix) {
  grading::value(prefix + "student_gflops", gflops(width, result.student_ms));
  grading::value(prefix + "reference_gflops", gflops(width, result.reference_ms));
  grading::value(prefix + "time_ratio", result.ratio);
  grading::value(prefix + "attempts", result.attempts);
  grading::measured(format_text("%.0f GFLOP/s", gflops(width, result.student_ms)),
                    format_text("%.0f GFLOP/s", gflops(width, result.reference_ms)), result.ratio);
}

// ---- Step 4: occupancy ---------------------------------------------------------

const cudaDeviceProp& device_properties() {
  static const cudaDeviceProp properties = [] {
    cudaDeviceProp p{};
    MEMLAB_CHECK(cudaGetDeviceProperties(&p, grading::device().device));
    return p;
  }();
  return properties;
}

// How many tile x tile blocks of the dynamic kernel one SM can hold, and which
// limit decides it (registers aside: the kernel needs few).
std::string occupancy_row(int tile, double achieved_gflops) {
  const cudaDeviceProp& p = device_properties();
  const int threads = tile * tile;
  const std::size_t shared = 2 * std::size_t(tile) * tile * sizeof(float);
  const int by_threads = p.maxThreadsPerMultiProcessor / threads;
  // Each resident block also takes the shared memory the system reserves for it.
  const auto by_shared = static_cast<int>(p.sharedMemPerMultiprocessor / (shared + p.reservedSharedMemPerBlock));
  const int by_blocks = p.maxBlocksPerMultiProcessor;
  const int blocks = std::min({by_threads, by_shared, by_blocks});
  const char* limit = blocks == by_blocks ? "blocks per SM" : blocks == by_threads ? "threads per SM" : "shared memory";
  return format_text("  %2d x %-2d  %5d  %6zu B  %6d  %6d  %6d  %5d (%3.0f%%, %s)  %6.0f\n", tile, tile, threads,
                     shared, by_threads, by_shared, by_blocks, blocks * threads,
                     100.0 * blocks * threads / p.maxThreadsPerMultiProcessor, limit, achieved_gflops);
}

}  // namespace

TEST_CASE("naive multiply is correct for any width", "[step1][correct]") {
  grading::hint("One thread per element of c: row from the y index, column from the x index, a grid that "
                "covers width x width (round the block count up), and `if (row < width && col < width)`.");
  const std::string problem = check_widths(student().matmul_naive, kAnyWidths);
  if (!problem.empty()) FAIL(problem);
  grading::measured("widths " + list(kAnyWidths));
}

TEST_CASE("naive multiply keeps up with the reference", "[step1][speed][timing]") {
  grading::hint("Consecutive threads (threadIdx.x) should take consecutive columns of c: then a warp reads "
                "consecutive elements of b's row k, and one element of a that all its threads share.");
  const int width = kTimingWidth;
  const grading::SpeedComparison result =
      time_against_reference(student().matmul_naive, reference().matmul_naive, width);
  record_speed(result, width, "");
  const double achieved = gflops(width, result.student_ms);
  add_to_roofline({"naive (step 1)", 0.25, achieved, width});
  grading::note(format_text("Step 1 at width %d:\n", width) +
                roofline_text("Your naive kernel, 2 FLOPs per two 4-byte loads,", 0.25, achieved) +
                "\n  Above that line means the caches (L1, L2) served most of its loads.");
  if (!result.passed()) FAIL("your naive multiply " << result.explain());
}

TEST_CASE("tiled multiply is correct when the width is a multiple of the tile", "[step2][correct]") {
  grading::hint("Per phase: each thread copies one element of a and one of b into the tiles, "
                "__syncthreads(), kTileWidth products from the tiles, __syncthreads() again.");
  const std::string problem = check_widths(student().matmul_tiled, kTileMultiples);
  if (!problem.empty()) FAIL(problem);
  grading::measured("widths " + list(kTileMultiples));
}

TEST_CASE("tiled multiply keeps up with the reference", "[step2][speed][timing]") {
  grading::require_step(1);
  grading::hint("Index the tiles [ty][k] and [k][tx]: a warp then reads one word of a_tile (a broadcast) "
                "and 32 consecutive words of b_tile (no bank conflicts).");
  const int width = kTimingWidth;
  const grading::SpeedComparison result =
      time_against_reference(student().matmul_tiled, reference().matmul_tiled, width);
  record_speed(result, width, "");
  const grading::SpeedComparison over_naive = grading::compare_speed(
      work_of(student().matmul_tiled, width), work_of(reference().matmul_naive, width), 1e9);
  const double speedup = 1.0 / over_naive.ratio;
  const double achieved = gflops(width, result.student_ms);
  const double cublas = gflops(width, cublas_milliseconds(width));
  grading::value("speedup_over_naive", speedup);
  grading::value("share_of_cublas", achieved / cublas);
  add_to_roofline({"tiled 16 (step 2)", lab4::kTileWidth / 4.0, achieved, width});
  grading::note(format_text(
      "Step 2 at width %d: your tiled kernel ran %.2fx as fast as the naive one, and reached %.0f%% of\n"
      "  cuBLAS SGEMM in full FP32 (%.0f GFLOP/s). Tiles of %d cut the loads per FLOP %dx; the speed\n"
      "  gained is far less, because L1 and L2 already served most of the naive kernel's repeated loads.\n",
      width, speedup, 100 * achieved / cublas, cublas, lab4::kTileWidth, lab4::kTileWidth) +
                roofline_text("The tiled kernel, 2 x 16 FLOPs per two loads,", lab4::kTileWidth / 4.0, achieved));
  if (!result.passed()) FAIL("your tiled multiply " << result.explain());
}

TEST_CASE("tiled multiply is correct for any width", "[step3][correct]") {
  grading::require_step(2);
  grading::hint("Round the phase count up, load 0 for tile elements outside the matrix (both loads), keep "
                "both barriers outside any `if`, and write c only for row < width and col < width.");
  const std::string problem = check_widths(student().matmul_tiled, kOtherWidths);
  if (!problem.empty()) FAIL(problem);
  grading::measured("widths " + list(kOtherWidths));
}

TEST_CASE("the tile width is chosen from the device's limits", "[step4][tile_choice]") {
  grading::hint("Try 32, then 16, then 8: the first whose tile x tile block is allowed and whose two float "
                "tiles fit in sharedMemPerBlock.");
  struct Case {
    const char* what;
    int max_threads;
    std::size_t shared;
  };
  const Case cases[] = {{"1024 threads, 48 KB per block", 1024, 48 * 1024},
                        {"256 threads per block at most", 256, 48 * 1024},
                        {"4 KB of shared memory per block", 1024, 4 * 1024},
                        {"64 threads, 48 KB", 64, 48 * 1024},
                        {"32 threads per block at most", 32, 48 * 1024}};
  for (const Case& c : cases) {
    cudaDeviceProp p = device_properties();
    p.maxThreadsPerBlock = c.max_threads;
    p.sharedMemPerBlock = c.shared;
    const int mine = student().choose_tile_width(p);
    const int right = reference().choose_tile_width(p);
    if (mine != right) FAIL(format_text("for a device with %s you chose %d; the rule gives %d", c.what, mine, right));
  }
  const int here = student().choose_tile_width(device_properties());
  const int right_here = reference().choose_tile_width(device_properties());
  if (here != right_here) FAIL(format_text("for this GPU you chose %d; the rule gives %d", here, right_here));
  grading::value("tile_width", here);
  grading::measured(format_text("%d here; 5 other devices right", here));
}

TEST_CASE("the dynamic-tile multiply is correct for every tile width and any width", "[step4][correct]") {
  grading::require_step(3);
  grading::hint("Put both tiles in one `extern __shared__ float tiles[]` (b's tile at tiles + tile * tile), "
                "index them [ty * tile + k] and [k * tile + tx], and launch with 2 * tile * tile * "
                "sizeof(float) as the third launch parameter.");
  const std::vector<int> widths = {1, 17, 100, 1000, 1024};
  for (int tile : {8, 16, 32}) {
    if (tile * tile > device_properties().maxThreadsPerBlock) continue;
    const Multiply dynamic = [tile](const float* a, const float* b, float* c, int w, cudaStream_t s) {
      student().matmul_dynamic(a, b, c, w, tile, s);
    };
    const std::string problem = check_widths(dynamic, widths);
    if (!problem.empty()) FAIL(format_text("tile width %d, ", tile) << problem);
  }
  grading::measured("tiles 8, 16, 32; widths " + list(widths));
}

TEST_CASE("the dynamic-tile multiply keeps up with the reference", "[step4][speed][timing]") {
  grading::require_step(3);
  grading::hint("With the tile from choose_tile_width, the dynamic kernel should be as fast as a "
                "compiled-in tile of that size.");
  const int width = kTimingWidth;
  const int tile = student().choose_tile_width(device_properties());
  const int reference_tile = reference().choose_tile_width(device_properties());
  if (tile == 0) FAIL("choose_tile_width returned 0 on this GPU");
  const auto with_tile = [](decltype(&lab4::matmul_dynamic) dynamic, int t) -> Multiply {
    return [dynamic, t](const float* a, const float* b, float* c, int w, cudaStream_t s) { dynamic(a, b, c, w, t, s); };
  };
  const grading::SpeedComparison result = time_against_reference(
      with_tile(student().matmul_dynamic, tile), with_tile(reference().matmul_dynamic, reference_tile), width);
  record_speed(result, width, "");
  add_to_roofline({format_text("dynamic %d (step 4)", tile), tile / 4.0, gflops(width, result.student_ms), width});

  const cudaDeviceProp& p = device_properties();
  std::string table = format_text(
      "Step 4: occupancy of your dynamic-tile kernel on this GPU: %d threads and %zu KB of shared memory\n"
      "  per SM, at most %d blocks per SM; %zu B of shared memory reserved per block. Width %d.\n"
      "  tile    threads  shared  blocks/SM limited by:     resident threads  GFLOP/s\n"
      "          /block   /block  threads  shared  blocks\n",
      p.maxThreadsPerMultiProcessor, p.sharedMemPerMultiprocessor / 1024, p.maxBlocksPerMultiProcessor,
      p.reservedSharedMemPerBlock, width);
  int fastest = 0;
  double fastest_gflops = 0.0;
  for (int t : {8, 16, 32}) {
    if (t * t > p.maxThreadsPerBlock) continue;
    const double achieved = gflops(width, grading::median_milliseconds(work_of(with_tile(student().matmul_dynamic, t), width)));
    table += occupancy_row(t, achieved);
    if (achieved > fastest_gflops) {
      fastest = t;
      fastest_gflops = achieved;
    }
  }
  const double compiled_in = gflops(width, grading::median_milliseconds(work_of(student().matmul_tiled, width)));
  table += format_text(
      "  Fastest here: tile %d. Your step 2 kernel, with its tile of %d compiled in, reached %.0f GFLOP/s:\n"
      "  with the tile known when the kernel is compiled, the k loop is unrolled and the tile offsets are\n"
      "  constants; with a tile known only at run time, each step of k costs a few more instructions.",
      fastest, lab4::kTileWidth, compiled_in);
  grading::note(table);
  if (!result.passed()) FAIL("your dynamic-tile multiply " << result.explain());
}

TEST_CASE("each of the seed's bugs is matched with the check that catches it", "[step5][answers][buggy_kernels]") {
  grading::hint("Read seed_bugs.cu. A bug that is wrong whatever the width fails step 2's check; one that "
                "only matters in a partial tile passes step 2 and fails step 3; a missing barrier is a race: "
                "its result depends on timing, so only racecheck catches it every time.");
  const auto detector_name = [](lab4::Detector d) {
    switch (d) {
      case lab4::Detector::step2_check: return "step 2's check";
      case lab4::Detector::step3_check: return "step 3's check";
      case lab4::Detector::racecheck: return "racecheck";
    }
    return "?";
  };
  std::string evidence = "Step 5: what the grader's checks saw on each of seed_bugs.cu's kernels in this run\n";
  int wrong = 0;
  for (const lab4::SeedBugInfo& info : lab4::kSeedBugs) {
    const Multiply buggy = [bug = info.bug](const float* a, const float* b, float* c, int w, cudaStream_t s) {
      lab4::matmul_with_seed_bug(bug, a, b, c, w, s);
    };
    const std::string at_multiples = check_widths(buggy, kTileMultiples);
    const std::string at_others = check_widths(buggy, kOtherWidths);
    const lab4::Detector answer = student().caught_by(info.bug);
    const lab4::Detector right = reference().caught_by(info.bug);
    wrong += answer != right;
    evidence += format_text("  %-27s (%s)\n    step 2's check: %s\n    step 3's check: %s\n    your answer: %s%s\n",
                            info.name, info.mistake, summary_of(at_multiples).c_str(),
                            summary_of(at_others).c_str(), detector_name(answer),
                            answer == right ? "" : "  (not right)");
  }
  grading::note(evidence);
  grading::measured(format_text("%d of %zu right", int(lab4::kSeedBugs.size()) - wrong, lab4::kSeedBugs.size()));
  if (wrong > 0) FAIL(wrong << " of your " << lab4::kSeedBugs.size() << " answers are not right (see the table below)");
}

TEST_CASE("the fast multiply is correct for any width", "[step6][correct]") {
  grading::require_step(3);
  grading::hint("Zero-fill the slices of a and b outside the matrix as in step 3, and guard each of the "
                "thread's stores to c separately: a block's tile may hang over the edge.");
  const std::string problem = check_widths(student().matmul_fast, kFastWidths);
  if (!problem.empty()) FAIL(problem);
  grading::measured("widths " + list(kFastWidths));
}

TEST_CASE("the fast multiply keeps up with the reference", "[step6][speed][timing]") {
  grading::require_step(3);
  grading::hint("Each thread should compute an 8 x 8 patch of c (or so) from values in registers: per k, "
                "8 loads of a and 8 of b from shared memory feed 64 multiply-adds.");
  const int width = kFastTimingWidth;
  const grading::SpeedComparison result = time_against_reference(student().matmul_fast, reference().matmul_fast, width);
  record_speed(result, width, "");
  const double achieved = gflops(width, result.student_ms);
  const double reference_achieved = gflops(width, result.reference_ms);
  const double cublas = gflops(width, cublas_milliseconds(width));
  const lab4::BlockTile tile = student().fast_block_tile();
  const double intensity =
      tile.rows > 0 && tile.cols > 0 ? double(tile.rows) * tile.cols / (2.0 * (tile.rows + tile.cols)) : 0.0;
  grading::value("share_of_cublas", achieved / cublas);
  grading::value("reference_share_of_cublas", reference_achieved / cublas);
  grading::value("cublas_gflops", cublas);
  add_to_roofline({"fast (step 6)", intensity, achieved, width});
  add_to_roofline({"cuBLAS SGEMM (FP32)", 0.0, cublas, width});
  grading::note(format_text(
      "Step 6 at width %d: your fast kernel reached %.0f GFLOP/s, %.0f%% of cuBLAS SGEMM in full FP32\n"
      "  (%.0f GFLOP/s; the reference: %.0f%%) and %.0f%% of this GPU's measured FP32 ceiling (%.0f).\n",
      width, achieved, 100 * achieved / cublas, cublas, 100 * reference_achieved / cublas,
      100 * achieved / grading::ceilings().fp32_gflops, grading::ceilings().fp32_gflops) +
                roofline_text(format_text("Your %d x %d block tile", tile.rows, tile.cols), intensity, achieved));
  if (!result.passed()) FAIL("your fast multiply " << result.explain());
}
