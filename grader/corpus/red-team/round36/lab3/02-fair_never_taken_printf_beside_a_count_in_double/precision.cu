// Red team 36, lab 3, file 02 (fair: float sums in float, failed as "added up in double" because
// a never-taken diagnostic printf widens the float sum beside a loop count computed in double).
// Red team 22's file 02 (grader/corpus/red-team/round22/lab3/02-fair_step1_template_ceil_double_
// fails_step2, expected 100: block-per-row sums whose template counts its passes with
// ceil((double)cols / blockDim.x), accepted as fair since red team 22), plus one line in step 1's
// template: `if (threadIdx.x == 0 && !isfinite(sum)) printf("... %f", sum);`, a guard left from
// debugging. The accumulator is a `real`; every addition of matrix elements is in float.
//
// Why it fails. printf's variadic call promotes the float to double: F2F.F64.F32 in
// block_row_sums<float>. The count in double already puts DFMA (the division) in the same kernel
// (tests/host/machine_code_test.cpp:156: "I2F.F64.U32, DFMA, DADD, F2I.U32.F64.CEIL"). Session 21's
// adds_widened_floats_in_double (common/memlab/grading/machine_code.cpp:320-322) asks only that
// ONE kernel holds both a widening and an addition in double, not that the widened value is what
// is added; labs/lab3_precision/grading/grader.cpp:79-84 then fails step1.correct ("adds floats up
// in double ... an accumulator of type double, such as `auto sum = 0.0;`, widens every term"),
// and step 2 is blocked (grader.cpp:157, require_step(1)). The host test at
// tests/host/machine_code_test.cpp:157 checks printf's widening only WITHOUT the count
// ({"LDG.E", "F2F.F64.F32", "STG.E.64"}). Checked with nvcc 13.0 -arch=sm_90 -O3 and cuobjdump
// -sass on this file: 1 F2F.F64.F32 and 17 DFMA in block_row_sums<float>.
//
// Edits to round22/lab3/02's precision.cu: (1) #include <cstdio> and the printf guard before the
// store in block_row_sums.
//
// Predicted now: step1.correct 0, step2.accuracy and step2.speed blocked: about 55 (step1.speed
// as round 22's file, 1.33x in run 95).
// Correct: what round 22's file gets (its corpus row: 100): nothing is added up in double.
// Confidence: high (prediction, from the predicate and the SASS); high (verdict); how often a
// student leaves such a printf: low to medium.

// Lab 3: float vs double. Block-per-row sums; step 2 with Kahan in every thread.
//
// Step 1's template works out how many passes each thread makes over its row
// with ceil(cols / blockDim.x). Step 2's kernel is a plain strided Kahan loop,
// all in float.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>  // Edit (1): printf

namespace lab3 {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr unsigned kAll = 0xffffffffu;

// Step 1: one block per row; each thread makes `passes` passes, one element of
// each block-wide stretch of the row (coalesced), then a tree.
template <typename real>
__global__ void block_row_sums(const real* __restrict__ matrix, real* __restrict__ sums, std::size_t cols) {
  __shared__ real partial[kWarps];
  const real* line = matrix + blockIdx.x * cols;
  const std::size_t passes = static_cast<std::size_t>(ceil(static_cast<double>(cols) / blockDim.x));
  real sum = 0;
  for (std::size_t p = 0; p < passes; ++p) {
    const std::size_t c = p * blockDim.x + threadIdx.x;
    if (c < cols) sum += line[c];
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(kAll, sum, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < kWarps ? partial[threadIdx.x] : real(0);
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(kAll, sum, offset);
    // Edit (1): a diagnostic kept from debugging the 2^32 offsets: never prints on finite data.
    if (threadIdx.x == 0 && !isfinite(sum)) printf("row_sums: row %u sum %f\n", blockIdx.x, sum);
    if (threadIdx.x == 0) sums[blockIdx.x] = sum;
  }
}

// A Kahan pair and the way two of them are joined (both in float).
struct Kahan {
  float s = 0.0f;
  float c = 0.0f;
  __device__ void add(float x) {
    const float y = x - c;
    const float t = s + y;
    c = (t - s) - y;
    s = t;
  }
  __device__ void join(float other_s, float other_c) {
    add(other_s);
    add(-other_c);
  }
};

// Step 2: one block per row, strided (coalesced) loads, Kahan in every thread.
__global__ void kahan_row_sums(const float* __restrict__ matrix, float* __restrict__ sums, std::size_t cols) {
  __shared__ float part_s[kWarps];
  __shared__ float part_c[kWarps];
  const float* line = matrix + blockIdx.x * cols;
  Kahan k;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) k.add(line[c]);
  for (int offset = 16; offset > 0; offset /= 2) {
    const float os = __shfl_down_sync(kAll, k.s, offset);
    const float oc = __shfl_down_sync(kAll, k.c, offset);
    k.join(os, oc);
  }
  if (threadIdx.x % 32 == 0) {
    part_s[threadIdx.x / 32] = k.s;
    part_c[threadIdx.x / 32] = k.c;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    Kahan w;
    if (threadIdx.x < kWarps) {
      w.s = part_s[threadIdx.x];
      w.c = part_c[threadIdx.x];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      const float os = __shfl_down_sync(kAll, w.s, offset);
      const float oc = __shfl_down_sync(kAll, w.c, offset);
      w.join(os, oc);
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = w.s - w.c;
  }
}

template <typename real>
__global__ void horner(const real* __restrict__ x, real* __restrict__ y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const real xi = x[i];
    real v = 1;
#pragma unroll 16
    for (int k = 0; k < kPolynomialDegree; ++k) v = v * xi + real(1);
    y[i] = v;
  }
}

template <typename real>
void launch_sums(const real* matrix, real* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  block_row_sums<real><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(matrix, sums, cols);
  MEMLAB_CHECK_LAUNCH();
}

template <typename real>
void launch_horner(const real* x, real* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t blocks =
      std::min<std::size_t>((n + kThreads - 1) / kThreads, std::size_t{8} * memlab::multiprocessor_count());
  horner<real><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x, y, n);
  MEMLAB_CHECK_LAUNCH();
}

}  // namespace

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_sums(matrix, sums, rows, cols, stream);
}

void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_sums(matrix, sums, rows, cols, stream);
}

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  kahan_row_sums<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(matrix, sums, cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_horner(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) { launch_horner(x, y, n, stream); }

}  // namespace lab3
