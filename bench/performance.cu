// `make bench`: the performance report. For each lab, every kernel of the
// reference solution, and the library call a user would pick instead of
// writing it, timed in the same run on the same data: the median of cold
// launches (L2 flushed before each) at sizes several times the L2, as a share
// of the ceilings measured at the start (copy bandwidth, FMA throughput).
// Prints Markdown and writes the same text to a file.
//
//   build/bench/bench_performance [--output FILE] [--samples N]
//
// The reference solutions are the labs' own builds (liblabN_reference.so),
// loaded as the graders load them, so the figures are those of the code the
// students are graded against.

#include "grading/lab1_api.hpp"
#include "grading/lab2_api.hpp"
#include "grading/lab3_api.hpp"
#include "grading/lab4_api.hpp"
#include "grading/lab5_api.hpp"

#include <memlab/cuda_check.cuh>
#include <memlab/device_facts.cuh>
#include <memlab/device_random.cuh>
#include <memlab/grading/cublas.hpp>
#include <memlab/grading/plugin.hpp>
#include <memlab/report.hpp>
#include <memlab/stats.hpp>
#include <memlab/timing.cuh>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <type_traits>
#include <string>
#include <vector>

using memlab::format_text;
using memlab::grading::MatrixOrder;

namespace {

// ---- The report ------------------------------------------------------------

// Markdown printed as it is made (a crash still leaves what was measured on the
// screen) and kept for the output file.
class Report {
 public:
  void line(const std::string& text) {
    std::cout << text << '\n' << std::flush;
    text_ += text + '\n';
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// What one row's figure is measured against.
enum class Ceiling { copy, fp32, fp64 };

struct Ceilings {
  memlab::MeasuredCeilings measured;
  double fp64_gflops = 0.0;
  double of(Ceiling c) const {
    return c == Ceiling::copy ? measured.copy_gbps : c == Ceiling::fp32 ? measured.fp32_gflops : fp64_gflops;
  }
};

// One lab's table: rows of work, each with the amount it moves (bytes) or
// computes (operations), and optionally the library row it is compared with.
class LabTable {
 public:
  LabTable(Report& report, memlab::KernelTimer& timer, const Ceilings& ceilings, int samples)
      : report_(report), timer_(timer), ceilings_(ceilings), samples_(samples) {}

  // Starts a table whose figures are bytes per second (Ceiling::copy) or
  // operations per second (fp32, fp64).
  void begin(const std::string& heading, const std::string& setup, Ceiling ceiling) {
    ceiling_ = ceiling;
    library_ms_.reset();
    const bool bandwidth = ceiling == Ceiling::copy;
    report_.line("## " + heading + "\n");
    report_.line(setup + "\n");
    report_.line(format_text("| kernel | ms, median (min-max) | %s | %% of %s | time / library's |",
                             bandwidth ? "GB/s" : "GFLOP/s", ceiling_name()));
    report_.line("|---|---|---|---|---|");
  }

  // Times the library's work first; the rows after it are compared with it.
  void library(const std::string& name, const memlab::Work& work, double amount) {
    const memlab::Summary ms = time(work);
    print(name, ms, amount, "(the yardstick)");
    library_ms_ = ms.median;
  }

  // Times one kernel of the reference solution.
  void kernel(const std::string& name, const memlab::Work& work, double amount) {
    const memlab::Summary ms = time(work);
    print(name, ms, amount, library_ms_ ? format_text("%.2f", ms.median / *library_ms_) : "no library call");
  }

  void end() { report_.line(""); }

 private:
  memlab::Summary time(const memlab::Work& work) {
    return memlab::summarize(timer_.samples_ms(work, {2, samples_, memlab::Cache::cold}));
  }

  void print(const std::string& name, const memlab::Summary& ms, double amount, const std::string& last) {
    const double rate = amount / (ms.median * 1e-3) / 1e9;  // GB/s or GFLOP/s
    report_.line(format_text("| %s | %.3f (%.3f-%.3f) | %.0f | %.1f | %s |", name.c_str(), ms.median, ms.min, ms.max,
                             rate, 100 * rate / ceilings_.of(ceiling_), last.c_str()));
  }

  const char* ceiling_name() const {
    return ceiling_ == Ceiling::copy ? "copy" : ceiling_ == Ceiling::fp32 ? "FP32 FMA" : "FP64 FMA";
  }

  Report& report_;
  memlab::KernelTimer& timer_;
  const Ceilings& ceilings_;
  int samples_;
  Ceiling ceiling_ = Ceiling::copy;
  std::optional<double> library_ms_;
};

template <typename Api>
const Api& reference_api(const char* path, const char* symbol) {
  // Loaded once and kept, as the graders keep theirs.
  static const memlab::grading::Plugin plugin(path);
  return *static_cast<const Api*>(plugin.symbol(symbol));
}

// The side of a square matrix of `element` bytes: `preferred` when
// `matrices` of them fit in a quarter of device memory, else smaller (a
// multiple of 1024), so the report runs on small cards too.
std::size_t fitting_side(std::size_t preferred, std::size_t element, int matrices, const memlab::DeviceFacts& gpu) {
  std::size_t side = preferred;
  while (side > 1024 && matrices * side * side * element > gpu.global_memory_bytes / 4) side -= 1024;
  return side;
}

std::string times_l2(double bytes, const memlab::DeviceFacts& gpu) {
  return format_text("%s, %.0fx L2", memlab::format_bytes(bytes).c_str(), bytes / static_cast<double>(gpu.l2_bytes));
}

// A vector of ones: y = A 1 is the row sums of A, the same GEMV cuBLAS offers.
template <typename real>
memlab::DeviceBuffer<real> ones(std::size_t n, cudaStream_t stream) {
  memlab::DeviceBuffer<real> buffer(n);
  const std::vector<real> host(n, real(1));
  buffer.upload(host, stream);
  return buffer;
}

// ---- The labs ----------------------------------------------------------------

struct Context {
  const memlab::DeviceFacts& gpu;
  memlab::Stream& stream;
  LabTable& table;
};

void lab1_vector_add(const Context& c) {
  const auto& api = reference_api<lab1::Api>(MEMLAB_LAB1_REFERENCE, "memlab_lab1_api");
  const std::size_t n = 8 * c.gpu.l2_bytes / (3 * sizeof(float));
  memlab::DeviceBuffer<float> a(n), b(n), out(n);
  memlab::fill_random(a.data(), n, 1, -1.0f, 1.0f, c.stream);
  memlab::fill_random(b.data(), n, 2, -1.0f, 1.0f, c.stream);
  const double bytes = 3.0 * sizeof(float) * static_cast<double>(n);

  c.table.begin("Lab 1: vector_add",
                format_text("c = a + b over %zu floats (%s; bytes read and written).", n, times_l2(bytes, c.gpu).c_str()),
                Ceiling::copy);
  c.table.library("thrust::transform", [&](cudaStream_t s) {
    thrust::transform(thrust::cuda::par_nosync.on(s), a.data(), a.data() + n, b.data(), out.data(),
                      thrust::plus<float>());
  }, bytes);
  c.table.kernel("reference vector_add", [&](cudaStream_t s) { api.vector_add(a.data(), b.data(), out.data(), n, s); },
                 bytes);
  c.table.end();
}

// Labs 2 and 3 sum the rows (and columns) of a row-major matrix; cuBLAS's GEMV
// with a vector of ones does the same reads.
template <typename real>
struct SumsProblem {
  SumsProblem(std::size_t side, cudaStream_t s) : side(side), matrix(side * side), sums(side), unit(ones<real>(side, s)) {
    memlab::fill_random(matrix.data(), side * side, 3, real(-1), real(1), s);
  }
  double bytes() const { return static_cast<double>(matrix.bytes()); }
  memlab::Work gemv(MatrixOrder order) {
    return [this, order](cudaStream_t s) {
      memlab::grading::gemv(order, side, side, real(1), matrix.data(), unit.data(), real(0), sums.data(), s);
    };
  }
  template <typename Sums>
  memlab::Work sums_by(Sums function) {
    return [this, function](cudaStream_t s) { function(matrix.data(), sums.data(), side, side, s); };
  }
  std::size_t side;
  memlab::DeviceBuffer<real> matrix, sums, unit;
};

void lab2_coalescing(const Context& c) {
  const auto& api = reference_api<lab2::Api>(MEMLAB_LAB2_REFERENCE, "memlab_lab2_api");
  SumsProblem<float> p(fitting_side(16384, sizeof(float), 1, c.gpu), c.stream);
  const std::string setup = format_text("Sums of a row-major %zu x %zu float matrix (%s; bytes of the matrix, read once).",
                                        p.side, p.side, times_l2(p.bytes(), c.gpu).c_str());
  c.table.begin("Lab 2: row sums", setup, Ceiling::copy);
  // To cuBLAS's column-major view the row-major matrix is A^T: its row sums are A 1.
  c.table.library("cuBLAS SGEMV, A 1", p.gemv(MatrixOrder::row_major), p.bytes());
  c.table.kernel("reference row_sums_thread_per_row (step 1)", p.sums_by(api.row_sums_thread_per_row), p.bytes());
  c.table.kernel("reference row_sums (step 3)", p.sums_by(api.row_sums), p.bytes());
  c.table.end();

  c.table.begin("Lab 2: column sums", setup, Ceiling::copy);
  // Column sums of A are the row sums of A^T, which is A read column-major.
  c.table.library("cuBLAS SGEMV, A^T 1", p.gemv(MatrixOrder::column_major), p.bytes());
  c.table.kernel("reference column_sums_thread_per_column (step 1)", p.sums_by(api.column_sums_thread_per_column),
                 p.bytes());
  c.table.kernel("reference column_sums (step 3)", p.sums_by(api.column_sums), p.bytes());
  c.table.end();
}

void lab3_precision(const Context& c) {
  const auto& api = reference_api<lab3::Api>(MEMLAB_LAB3_REFERENCE, "memlab_lab3_api");
  // One side for both types, chosen so that the double matrix fits.
  const std::size_t side = fitting_side(16384, sizeof(double), 1, c.gpu);
  {
    SumsProblem<float> f(side, c.stream);
    c.table.begin("Lab 3: row sums in float",
                  format_text("Row sums of a row-major %zu x %zu matrix (%s).", side, side, times_l2(f.bytes(), c.gpu).c_str()),
                  Ceiling::copy);
    c.table.library("cuBLAS SGEMV, A 1", f.gemv(MatrixOrder::row_major), f.bytes());
    c.table.kernel("reference row_sums<float> (step 1)", f.sums_by(api.row_sums_float), f.bytes());
    c.table.kernel("reference row_sums_compensated (step 2)", f.sums_by(api.row_sums_compensated), f.bytes());
    c.table.end();
  }
  {
    SumsProblem<double> d(side, c.stream);
    c.table.begin("Lab 3: row sums in double",
                  format_text("The same sums in double (%s).", times_l2(d.bytes(), c.gpu).c_str()), Ceiling::copy);
    c.table.library("cuBLAS DGEMV, A 1", d.gemv(MatrixOrder::row_major), d.bytes());
    c.table.kernel("reference row_sums<double> (step 1)", d.sums_by(api.row_sums_double), d.bytes());
    c.table.end();
  }
  // Step 3's polynomial: Horner's rule, one FMA (2 operations) per degree per element.
  const std::size_t n = std::size_t{1} << 24;
  const double operations = 2.0 * lab3::kPolynomialDegree * static_cast<double>(n);
  const auto polynomial = [&](auto real_value, Ceiling ceiling, const char* type) {
    using real = decltype(real_value);
    memlab::DeviceBuffer<real> x(n), y(n);
    memlab::fill_random(x.data(), n, 4, real(-1), real(1), c.stream);
    c.table.begin(format_text("Lab 3: the polynomial in %s", type),
                  format_text("Degree %d by Horner's rule over %zu %ss: compute-bound; no library call does this.",
                              lab3::kPolynomialDegree, n, type),
                  ceiling);
    const auto function = [&] {
      if constexpr (std::is_same_v<real, float>) return api.polynomial_float;
      else return api.polynomial_double;
    }();
    c.table.kernel(format_text("reference polynomial<%s> (step 3)", type),
                   [&](cudaStream_t s) { function(x.data(), y.data(), n, s); }, operations);
    c.table.end();
  };
  polynomial(0.0f, Ceiling::fp32, "float");
  polynomial(0.0, Ceiling::fp64, "double");
}

void lab4_matmul(const Context& c) {
  const auto& api = reference_api<lab4::Api>(MEMLAB_LAB4_REFERENCE, "memlab_lab4_api");
  const int width = static_cast<int>(fitting_side(4096, sizeof(float), 3, c.gpu));
  const std::size_t count = static_cast<std::size_t>(width) * width;
  memlab::DeviceBuffer<float> a(count), b(count), out(count);
  memlab::fill_random(a.data(), count, 5, -1.0f, 1.0f, c.stream);
  memlab::fill_random(b.data(), count, 6, -1.0f, 1.0f, c.stream);
  const double operations = 2.0 * std::pow(static_cast<double>(width), 3);
  cudaDeviceProp properties{};
  MEMLAB_CHECK(cudaGetDeviceProperties(&properties, c.gpu.device));
  const int tile = api.choose_tile_width(properties);
  const auto multiply = [&](auto function) {
    return [&, function](cudaStream_t s) { function(a.data(), b.data(), out.data(), width, s); };
  };

  c.table.begin("Lab 4: matrix multiply",
                format_text("c = a b, square float matrices of side %d (%s for the three; 2 width^3 operations).", width,
                            times_l2(3.0 * sizeof(float) * static_cast<double>(count), c.gpu).c_str()),
                Ceiling::fp32);
  c.table.library("cuBLAS SGEMM, full FP32 (no TF32)", multiply(&memlab::grading::matmul), operations);
  c.table.kernel("reference matmul_naive (step 1)", multiply(api.matmul_naive), operations);
  c.table.kernel(format_text("reference matmul_tiled, tile %d (steps 2-3)", lab4::kTileWidth), multiply(api.matmul_tiled),
                 operations);
  c.table.kernel(format_text("reference matmul_dynamic, tile %d (step 4)", tile),
                 [&](cudaStream_t s) { api.matmul_dynamic(a.data(), b.data(), out.data(), width, tile, s); }, operations);
  c.table.kernel("reference matmul_fast (step 6)", multiply(api.matmul_fast), operations);
  c.table.end();
}

void lab5_gemv(const Context& c) {
  const auto& api = reference_api<lab5::Api>(MEMLAB_LAB5_REFERENCE, "memlab_lab5_api");
  const std::size_t n = fitting_side(20000, sizeof(double), 2, c.gpu);
  memlab::DeviceBuffer<double> row_major(n * n), column_major(n * n), x(n), y(n);
  memlab::fill_random(row_major.data(), n * n, 7, -1.0, 1.0, c.stream);
  memlab::fill_random(x.data(), n, 8, -1.0, 1.0, c.stream);
  memlab::fill_random(y.data(), n, 9, -1.0, 1.0, c.stream);
  memlab::grading::to_column_major(row_major.data(), column_major.data(), n, n, c.stream);
  const double bytes = sizeof(double) * (static_cast<double>(n) * n + 3.0 * n);  // A, x, y read and written
  constexpr double kAlpha = 0.75, kBeta = -0.5;
  const auto gemv = [&](lab5::Gemv function, lab5::Layout layout) {
    const double* a = layout == lab5::Layout::row_major ? row_major.data() : column_major.data();
    return [&, function, a](cudaStream_t s) { function(n, n, kAlpha, a, x.data(), kBeta, y.data(), s); };
  };
  const auto cublas = [&](MatrixOrder order) {
    const double* a = order == MatrixOrder::row_major ? row_major.data() : column_major.data();
    return [&, order, a](cudaStream_t s) { memlab::grading::gemv(order, n, n, kAlpha, a, x.data(), kBeta, y.data(), s); };
  };

  const std::string setup = format_text("y = 0.75 A x - 0.5 y in double, A %zu x %zu (%s; A, x and y read, y written).",
                                        n, n, times_l2(bytes, c.gpu).c_str());
  c.table.begin("Lab 5: GEMV, A row-major", setup, Ceiling::copy);
  c.table.library("cuBLAS DGEMV", cublas(MatrixOrder::row_major), bytes);
  c.table.kernel("reference gemv_row_major (step 1)", gemv(api.gemv_row_major, lab5::Layout::row_major), bytes);
  if (api.fast_layout() == lab5::Layout::row_major) {
    c.table.kernel("reference gemv_fast (step 4)", gemv(api.gemv_fast, lab5::Layout::row_major), bytes);
  }
  c.table.end();

  c.table.begin("Lab 5: GEMV, A column-major", setup, Ceiling::copy);
  c.table.library("cuBLAS DGEMV", cublas(MatrixOrder::column_major), bytes);
  c.table.kernel("reference gemv_column_major (step 2)", gemv(api.gemv_column_major, lab5::Layout::column_major), bytes);
  c.table.kernel("reference gemv_shared_x (step 3)", gemv(api.gemv_shared_x, lab5::Layout::column_major), bytes);
  if (api.fast_layout() == lab5::Layout::column_major) {
    c.table.kernel("reference gemv_fast (step 4)", gemv(api.gemv_fast, lab5::Layout::column_major), bytes);
  }
  c.table.end();
}

// The kernel module's version ("580.159.04"), which nvidia-smi calls the driver
// version; the CUDA API reports only the CUDA version it supports. The file's
// first line names it after "Kernel Module" (and on some drivers "for x86_64").
std::string driver_release() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string word;
  while (file >> word) {
    if (word.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(word[0]))) return word;
  }
  return "unknown";
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::localtime(&now));
  return text;
}

int usage(const char* why) {
  std::fprintf(stderr, "bench_performance: %s\nusage: bench_performance [--output FILE] [--samples N (3-101)]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string output;
  int samples = 21;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--output" && i + 1 < argc) {
      output = argv[++i];
    } else if (arg == "--samples" && i + 1 < argc) {
      samples = std::atoi(argv[++i]);
      if (samples < 3 || samples > 101) return usage("--samples must be between 3 and 101");
    } else {
      return usage(("unknown argument " + arg).c_str());
    }
  }
  if (const auto why = memlab::why_no_gpu()) {
    std::printf("No GPU here (%s); the performance report needs one.\n", why->c_str());
    return 77;
  }
  try {
    const memlab::DeviceFacts gpu = memlab::query_device();
    memlab::Stream stream;
    memlab::KernelTimer timer(stream, gpu.l2_bytes);
    const Ceilings ceilings{memlab::measure_ceilings(gpu, stream), memlab::measure_fp64_gflops(gpu, stream)};
    Report report;
    LabTable table(report, timer, ceilings, samples);

    report.line("# Performance report: " + gpu.name + "\n");
    report.line(format_text("%s; driver %s (CUDA %d.%d), built with CUDA %d.%d; %s.\n", gpu.summary().c_str(),
                            driver_release().c_str(), gpu.driver_version / 1000, gpu.driver_version % 1000 / 10,
                            gpu.runtime_version / 1000, gpu.runtime_version % 1000 / 10, today().c_str()));
    report.line(format_text(
        "Every time is the median of %d launches with L2 flushed before each (min-max beside it), after two "
        "untimed ones. Ceilings measured at the start: copy %.0f GB/s (bytes read + written, %s per buffer), "
        "FP32 FMA %.0f GFLOP/s, FP64 FMA %.0f GFLOP/s. \"time / library's\" is the reference's median time over "
        "the library's: below 1, the reference is faster.\n",
        samples, ceilings.measured.copy_gbps, memlab::format_bytes(static_cast<double>(ceilings.measured.copy_bytes)).c_str(),
        ceilings.measured.fp32_gflops, ceilings.fp64_gflops));

    const Context context{gpu, stream, table};
    for (const auto lab : {lab1_vector_add, lab2_coalescing, lab3_precision, lab4_matmul, lab5_gemv}) lab(context);

    if (!output.empty()) {
      std::ofstream file(output);
      file << report.text();
      if (!file.flush()) {
        std::fprintf(stderr, "bench_performance: could not write %s\n", output.c_str());
        return 1;
      }
      std::printf("(written to %s)\n", output.c_str());
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_performance: %s\n", error.what());
    return 1;
  }
  return 0;
}
