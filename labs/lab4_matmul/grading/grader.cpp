// Lab 4 grader: checks matmul.cu step by step, beside the reference solution,
// on this machine's GPU, with cuBLAS (full FP32, no TF32) as the yardstick.
// Run it through `make lab4`.
//
// Every threshold below was chosen from measurements or from the error bounds
// of the arithmetic; docs/measurements/lab4-5.md has the runs and the reasoning.

// The operands, the CPU oracle and the checked timed runs are in products.*;
// what the checks explain (the roofline, occupancy, step 5's table) in notes.*.

#include "lab4.cuh"
#include "products.hpp"
#include "notes.hpp"
#include "seed_bugs.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/grading/catch2.hpp>
#include <memlab/grading/grader.hpp>
#include <memlab/grading/speed.hpp>
#include <memlab/report.hpp>

#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace grading = memlab::grading;
using memlab::format_text;
using namespace lab4::checks;

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

const std::vector<int> kAnyWidths = {1, 15, 16, 17, 100, 1024};
const std::vector<int> kTileMultiples = {16, 32, 48, 512, 1024};
const std::vector<int> kOtherWidths = {1, 15, 17, 100, 1000, 1023};
const std::vector<int> kFastWidths = {1, 17, 100, 129, 1000, 1024};

std::string list(const std::vector<int>& widths) {
  std::string text;
  for (int width : widths) text += (text.empty() ? "" : ", ") + std::to_string(width);
  return text;
}

// Fails the running check with the first of @p widths that @p multiply gets
// wrong; else records the widths it was right at.
void require_correct(const Multiply& multiply, const std::vector<int>& widths) {
  const std::string problem = check_widths(multiply, widths);
  if (!problem.empty()) FAIL(problem);
  grading::measured("widths " + list(widths));
}

// Times the student's @p kernel against the reference's at @p width, after
// checking it there, and records both GFLOP/s. A time far below what the GPU's
// FP32 rate allows for 2 width^3 operations is refused (fewer products than the
// header's, say); tensor cores in TF32 pass it unless they beat that rate by 4/3.
grading::SpeedComparison time_against_reference(const Multiply& mine, const Multiply& theirs, int width) {
  const std::string problem = check_product(mine, width);
  if (!problem.empty()) throw std::runtime_error("wrong at the timing width: " + problem);
  const grading::SpeedComparison result =
      grading::compare_speed(checked_work(mine, width), checked_work(theirs, width), kSpeedLimit,
                             grading::arithmetic_floor_ms(flops(width), grading::fma_ceiling_gflops(false)));
  grading::record_arithmetic(result, flops(width));
  return result;
}

}  // namespace

TEST_CASE("naive multiply is correct for any width", "[step1][correct]") {
  grading::hint("One thread per element of c: row from the y index, column from the x index, a grid that "
                "covers width x width (round the block count up), and `if (row < width && col < width)`.");
  require_correct(student().matmul_naive, kAnyWidths);
}

TEST_CASE("naive multiply keeps up with the reference", "[step1][speed][timing]") {
  grading::hint("Consecutive threads (threadIdx.x) should take consecutive columns of c: then each half of a "
                "warp reads the same 16 consecutive elements of b's row k, and one element of a that its 16 "
                "threads share.");
  const int width = kTimingWidth;
  const grading::SpeedComparison result =
      time_against_reference(student().matmul_naive, reference().matmul_naive, width);
  const double achieved = gflops(width, result.student_ms);
  add_to_roofline({"naive (step 1)", 0.25, achieved, width});
  grading::note(step1_note(width, achieved));
  if (!result.passed()) FAIL("your naive multiply " << result.explain());
}

TEST_CASE("tiled multiply is correct when the width is a multiple of the tile", "[step2][correct]") {
  grading::hint("Per phase: each thread copies one element of a and one of b into the tiles, "
                "__syncthreads(), kTileWidth products from the tiles, __syncthreads() again.");
  const grading::StudentLaunches launches;  // a tiled kernel in the build counts only if this step launches it
  require_correct(student().matmul_tiled, kTileMultiples);
  const std::string method =
      grading::launched_method_missing(launches, "matmul_tiled", grading::uses_shared_memory, "uses shared memory",
                                       "a tiled multiply stages its tiles in __shared__ arrays");
  if (!method.empty()) FAIL(method);
}

TEST_CASE("tiled multiply keeps up with the reference", "[step2][speed][timing]") {
  grading::require_step(1);
  grading::hint("Index the tiles [ty][k] and [k][tx]: a warp (two rows of the block) then reads two words "
                "of a_tile, each a broadcast, and 16 consecutive words of b_tile (no bank conflicts).");
  const int width = kTimingWidth;
  const grading::StudentLaunches timed;
  const grading::SpeedComparison result =
      time_against_reference(student().matmul_tiled, reference().matmul_tiled, width);
  // The timed runs are judged as step 2's correctness check judged its calls: each must launch a tiled kernel.
  const std::string method =
      grading::launched_method_missing(timed, "matmul_tiled", grading::uses_shared_memory, "uses shared memory",
                                       "in the timed runs, a tiled multiply stages its tiles in __shared__ arrays");
  if (!method.empty()) {
    grading::unscored();
    FAIL(method);
  }
  const grading::SpeedComparison over_naive = grading::compare_speed(
      work_of(student().matmul_tiled, width), work_of(reference().matmul_naive, width), 1e9);
  const double speedup = 1.0 / over_naive.ratio;
  const double achieved = gflops(width, result.student_ms);
  const double cublas = gflops(width, cublas_milliseconds(width));
  grading::value("speedup_over_naive", speedup);
  grading::value("share_of_cublas", achieved / cublas);
  add_to_roofline({"tiled 16 (step 2)", lab4::kTileWidth / 4.0, achieved, width});
  grading::note(step2_note(width, speedup, achieved, cublas));
  if (!result.passed()) FAIL("your tiled multiply " << result.explain());
}

TEST_CASE("tiled multiply is correct for any width", "[step3][correct]") {
  grading::require_step(2);
  grading::hint("Round the phase count up, load 0 for tile elements outside the matrix (both loads), keep "
                "both barriers outside any `if`, and write c only for row < width and col < width.");
  require_correct(student().matmul_tiled, kOtherWidths);
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
                        {"32 threads per block at most", 32, 48 * 1024},
                        // Exactly two tiles' bytes: a comparison that should allow equality (red team 30).
                        {"8 KB of shared memory per block, two 32 x 32 tiles exactly", 1024, 8 * 1024},
                        {"2 KB of shared memory per block, two 16 x 16 tiles exactly", 1024, 2 * 1024}};
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
  grading::measured(format_text("%d here; %zu other devices right", here, std::size(cases)));
}

namespace {

// Step 4's lesson is the tile sized at run time: two tile x tile float tiles in
// one extern __shared__ array, sized by the launch's third parameter. Kernels
// with fixed tiles, one per width (templates), compute the same products, so
// the launches themselves are read (the runner's launch watch), and the code
// of the kernels they launched. "" when one launch of a kernel that stages
// data in shared memory asked for at least both tiles' bytes (an empty kernel
// launched to ask for them is not it: red team 23), and no launched kernel,
// staging or not, holds a tile's bytes or more in fixed __shared__ arrays (a
// kernel that asks for the bytes and works in fixed tiles, red team 23, or
// stores to them through generic addresses beside a decoy that asks, red team
// 24); or the runner could not watch.
std::string tiles_not_dynamic(const grading::StudentLaunches& launches, int tile) {
  const grading::SharedMemoryUse use = grading::shared_memory_use(launches, grading::uses_shared_memory);
  if (!use.watched) return "";
  const auto tile_bytes = static_cast<std::uint32_t>(tile * tile * sizeof(float));
  if (use.least_dynamic_of_a_call < 2 * tile_bytes) {
    return format_text("tile width %d: in a call of your matmul_dynamic, no kernel it launched that stages data in "
                       "shared memory was given the two tiles' %u bytes of dynamic shared memory (the most asked "
                       "for in that call: %u bytes). The tiles must live in one extern __shared__ array sized by "
                       "the launch's third parameter, not in fixed __shared__ arrays",
                       tile, 2 * tile_bytes, use.least_dynamic_of_a_call);
  }
  if (use.most_static >= tile_bytes) {
    return format_text("tile width %d: your matmul_dynamic launched %s, which holds %u bytes of fixed __shared__ "
                       "arrays, a %u-byte tile or more. No kernel matmul_dynamic launches may: the tiles live in "
                       "the extern __shared__ array sized by the launch's third parameter. A fixed array these "
                       "calls never use counts too, where the compiler must keep it (one kernel for steps 2 and 4 "
                       "chosen by a run-time flag): make the choice a template parameter, or write two kernels",
                       tile, use.most_static_kernel.c_str(), use.most_static, tile_bytes);
  }
  return "";
}

}  // namespace

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
    const grading::StudentLaunches launches;
    const std::string problem = check_widths(dynamic, widths);
    if (!problem.empty()) FAIL(format_text("tile width %d, ", tile) << problem);
    const std::string fixed_tiles = tiles_not_dynamic(launches, tile);
    if (!fixed_tiles.empty()) FAIL(fixed_tiles);
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
  const grading::StudentLaunches timed;
  const grading::SpeedComparison result = time_against_reference(
      with_tile(student().matmul_dynamic, tile), with_tile(reference().matmul_dynamic, reference_tile), width);
  const std::string fixed_tiles = tiles_not_dynamic(timed, tile);
  if (!fixed_tiles.empty()) {
    grading::unscored();
    FAIL("in the timed runs, " << fixed_tiles);
  }
  add_to_roofline({format_text("dynamic %d (step 4)", tile), tile / 4.0, gflops(width, result.student_ms), width});

  const auto dynamic_gflops = [&](int t) {
    return gflops(width, grading::median_milliseconds(work_of(with_tile(student().matmul_dynamic, t), width)));
  };
  const auto compiled_in_gflops = [&] {
    return gflops(width, grading::median_milliseconds(work_of(student().matmul_tiled, width)));
  };
  grading::note(occupancy_report(width, dynamic_gflops, compiled_in_gflops));
  if (!result.passed()) FAIL("your dynamic-tile multiply " << result.explain());
}

TEST_CASE("each of the seeded bugs is matched with the check that catches it", "[step5][answers][buggy_kernels]") {
  grading::hint("Read seed_bugs.cu. A bug that is wrong whatever the width fails step 2's check; one that "
                "only matters in a partial tile passes step 2 and fails step 3; a missing barrier is a race: "
                "its result depends on timing, so only racecheck catches it every time.");
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
    evidence += seed_bug_row(info, at_multiples, at_others, answer, answer == right);
  }
  grading::note(evidence);
  grading::measured(format_text("%d of %zu right", int(lab4::kSeedBugs.size()) - wrong, lab4::kSeedBugs.size()));
  if (wrong > 0) FAIL(wrong << " of your " << lab4::kSeedBugs.size() << " answers are not right (see the table below)");
}

TEST_CASE("the fast multiply is correct for any width", "[step6][correct]") {
  grading::require_step(3);
  grading::hint("Zero-fill the slices of a and b outside the matrix as in step 3, and guard each of the "
                "thread's stores to c separately: a block's tile may hang over the edge.");
  require_correct(student().matmul_fast, kFastWidths);
}

TEST_CASE("the fast multiply keeps up with the reference", "[step6][speed][timing]") {
  grading::require_step(3);
  grading::hint("Each thread should compute an 8 x 8 patch of c (or so) from values in registers: per k, "
                "8 loads of a and 8 of b from shared memory feed 64 multiply-adds.");
  const int width = kFastTimingWidth;
  const grading::SpeedComparison result = time_against_reference(student().matmul_fast, reference().matmul_fast, width);
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
  grading::note(step6_note(width, tile, intensity, achieved, reference_achieved, cublas));
  if (!result.passed()) FAIL("your fast multiply " << result.explain());
}
