// Red team 21, lab 3 step 2 (trick): the compensated sums are added in double by a kernel
// launched from a helper thread after the runner took the call's list of launches.
// Steps 1 and 3 are the reference solution's.
//
// Same interface as labs/lab3_precision/precision.cu (declared in lab3.cuh).
// The grader runs it beside the student's file and compares the two.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace lab3 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;
constexpr unsigned kFullWarp = 0xffffffffu;

std::size_t warp_per_row_blocks(std::size_t rows) { return (rows + kWarpsPerBlock - 1) / kWarpsPerBlock; }

// ---- Step 1: one template, two types -------------------------------------

// Memory pattern: one warp per row, lane l reading columns l, l + 32, ...: each
// load is 32 neighbouring elements, 128 bytes for float and 256 for double, so
// the double kernel moves exactly twice the bytes in the same number of loads.
// The accumulator has the matrix's type: a float accumulator in the double
// kernel would throw away 29 of double's 53 bits at every addition.
template <typename real>
__global__ void row_sums_kernel(const real* __restrict__ matrix, real* __restrict__ sums, std::size_t rows,
                                std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;  // the whole warp leaves together: the shuffles need all 32 lanes
  const real* line = matrix + row * cols;
  real sum = 0;
  for (std::size_t c = lane; c < cols; c += kWarpSize) sum += line[c];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
  if (lane == 0) sums[row] = sum;
}

template <typename real>
void launch_row_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_kernel<real><<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows, cols);
  MEMLAB_CHECK_LAUNCH();
}

// ---- Step 2 (red team 21, trick): the sums are added in double, by a kernel
// launched from a helper thread after the runner has taken this call's list of
// launches ------------------------------------------------------------------
//
// The runner names a call's kernels when the lab function returns
// (runner_main.cpp: take_launches() right after dispatch), before its
// cudaDeviceSynchronize(); launches made between calls are thrown away as the
// runner's own. So row_sums_compensated launches only finish_rows_kernel, which
// waits on the GPU for an epoch number; a helper thread launches the double
// kernel some microseconds after the function returned, the waiting kernel ends
// when the double kernel has written the sums, and the runner's synchronize
// waits for the waiting kernel. The double kernel hides its floats from its
// signature (red team 14's widening with integer operations), so the whole
// build's check (computes_on_floats_in_double) passes it too.

constexpr int kTotalThreads = 256;

__device__ __forceinline__ double widen_bits(unsigned bits, double unit) {
  const unsigned exponent = (bits >> 23) & 0xffu;
  const unsigned long long sign = static_cast<unsigned long long>(bits >> 31) << 63;
  const unsigned long long mantissa = bits & 0x7fffffu;
  if (exponent == 0) {
    const double m = static_cast<double>(static_cast<unsigned>(mantissa)) * 0x1p-149;
    return __longlong_as_double(__double_as_longlong(m) | static_cast<long long>(sign));
  }
  const unsigned long long e = exponent == 0xffu ? 0x7ffull : exponent + 896ull;
  return __longlong_as_double(static_cast<long long>(sign | (e << 52) | (mantissa << 29))) * unit;
}

// One block per row (grid-stride over rows), 16-byte loads where the row allows;
// state[0] is the last epoch finished, state[1] counts this launch's finished blocks.
__global__ void __launch_bounds__(kTotalThreads)
row_totals_kernel(const unsigned* __restrict__ matrix_bits, unsigned* __restrict__ sum_bits, std::size_t rows,
                  std::size_t cols, double unit, unsigned long long* state, unsigned long long epoch) {
  __shared__ double warp_totals[kTotalThreads / kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const unsigned* line = matrix_bits + row * cols;
    double total0 = 0, total1 = 0;
    std::size_t c = 0;
    if (reinterpret_cast<std::uintptr_t>(line) % 16 == 0) {
      const uint4* quads = reinterpret_cast<const uint4*>(line);
      const std::size_t count = cols / 4;
      for (std::size_t q = threadIdx.x; q < count; q += kTotalThreads) {
        const uint4 v = quads[q];
        total0 += widen_bits(v.x, unit) + widen_bits(v.y, unit);
        total1 += widen_bits(v.z, unit) + widen_bits(v.w, unit);
      }
      c = count * 4;
    }
    for (std::size_t k = c + threadIdx.x; k < cols; k += kTotalThreads) total0 += widen_bits(line[k], unit);
    double total = total0 + total1;
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) total += __shfl_down_sync(kFullWarp, total, offset);
    if (lane == 0) warp_totals[warp] = total;
    __syncthreads();
    if (threadIdx.x == 0) {
      double row_total = 0;
      for (int w = 0; w < kTotalThreads / kWarpSize; ++w) row_total += warp_totals[w];
      sum_bits[row] = __float_as_uint(static_cast<float>(row_total));
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    __threadfence();  // this block's sums before its count
    const unsigned long long finished = atomicAdd(&state[1], 1ull) + 1;
    if (finished == gridDim.x) {
      atomicExch(&state[1], 0ull);
      __threadfence();
      atomicExch(&state[0], epoch);
    }
  }
}

// The only kernel row_sums_compensated launches: it waits (at most a few seconds)
// until the sums of @p epoch are written.
__global__ void finish_rows_kernel(const unsigned long long* state, unsigned long long epoch) {
  const volatile unsigned long long* done = state;
  for (long long tries = 0; tries < 20000000; ++tries) {
    if (*done >= epoch) {
      __nanosleep(5000);  // the double kernel's last block leaves too
      return;
    }
    __nanosleep(200);
  }
}

struct Job {
  const float* matrix = nullptr;
  float* sums = nullptr;
  std::size_t rows = 0;
  std::size_t cols = 0;
  unsigned long long epoch = 0;
  std::chrono::steady_clock::time_point posted;
  std::chrono::microseconds delay{0};
};

// Never destroyed: its thread runs until the process ends.
class Helper {
 public:
  Helper() {
    MEMLAB_CHECK(cudaMalloc(&state_, 2 * sizeof(unsigned long long)));
    MEMLAB_CHECK(cudaMemset(state_, 0, 2 * sizeof(unsigned long long)));
    sms_ = memlab::multiprocessor_count();
    std::thread(&Helper::loop, this).detach();
  }

  // Launches the kernel that waits for this call's sums and hands the job to the
  // helper thread; returns at once (the runner then takes its list of launches).
  void post(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
    Job job;
    job.matrix = matrix;
    job.sums = sums;
    job.rows = rows;
    job.cols = cols;
    job.epoch = ++epochs_;
    // Long enough that the runner has surely taken its list (the accuracy check's 2^24
    // elements: 2 ms); short at the timed size (2^28 elements on an H100), whose
    // launches no check reads.
    job.delay = rows * cols < (std::size_t{1} << 26) ? std::chrono::microseconds(2000) : std::chrono::microseconds(25);
    finish_rows_kernel<<<1, 1, 0, stream>>>(state_, job.epoch);
    MEMLAB_CHECK_LAUNCH();
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      job.posted = std::chrono::steady_clock::now();
      job_ = job;
      waiting_ = true;
    }
    wake_.notify_one();
  }

 private:
  void loop() {
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  // sleeps end when asked, not up to 50 us later
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return waiting_; });
        job = job_;
        waiting_ = false;
      }
      // Woken at once: sleep (giving the runner's thread the CPU back) until the
      // function has long returned and the runner has taken this call's launches.
      while (std::chrono::steady_clock::now() - job.posted < job.delay) {
        std::this_thread::sleep_for(std::chrono::microseconds(10));
      }
      const std::size_t blocks = std::min<std::size_t>(job.rows, std::size_t{16} * sms_);
      row_totals_kernel<<<blocks, kTotalThreads, 0, stream>>>(reinterpret_cast<const unsigned*>(job.matrix),
                                                              reinterpret_cast<unsigned*>(job.sums), job.rows,
                                                              job.cols, 1.0, state_, job.epoch);
      cudaGetLastError();
    }
  }

  unsigned long long* state_ = nullptr;
  int sms_ = 132;
  unsigned long long epochs_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool waiting_ = false;
  Job job_;
};

// ---- Step 3: compute-bound ------------------------------------------------

// Memory pattern: each element read once and written once (8 bytes for float,
// 16 for double), with 2 x kPolynomialDegree floating-point operations between:
// 128 operations per byte for float, so the arithmetic units, not DRAM, set the
// time. The loop is a chain of dependent multiply-adds (nvcc fuses each into
// one FMA); a full GPU of threads keeps enough independent chains in flight.
// It is unrolled completely: an SM sub-partition issues one instruction per
// clock and can finish one float FMA per clock, so in float every loop-counter
// or branch instruction costs an FMA's slot (in double, FMAs take two clocks
// and the overhead hides).
template <typename real>
__global__ void polynomial_kernel(const real* __restrict__ x, real* __restrict__ y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const real xi = x[i];
    real value = 1;
#pragma unroll
    for (int k = 0; k < kPolynomialDegree; ++k) value = value * xi + real(1);
    y[i] = value;
  }
}

template <typename real>
void launch_polynomial(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  // Enough blocks for every SM's full share of threads, never more than n needs.
  const std::size_t blocks = std::min<std::size_t>((n + kThreadsPerBlock - 1) / kThreadsPerBlock,
                                                   std::size_t{8} * memlab::multiprocessor_count());
  polynomial_kernel<real><<<blocks, kThreadsPerBlock, 0, stream>>>(x, y, n);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  static Helper* const helper = new Helper;
  helper->post(matrix, sums, rows, cols, stream);
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3
