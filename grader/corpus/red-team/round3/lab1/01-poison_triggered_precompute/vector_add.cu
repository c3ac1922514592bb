// Lab 1 red-team round 3, submission 01: a slow kernel that runs before its
// timed call, started by the grader's own poison (against 7a79211).
//
// The student's only kernel is slow: one block of 256 threads per SM, a
// grid-stride loop (round 2 measured this launch configuration at about 2.5 ms
// against the reference's 0.36-0.40 ms at 1 GiB: ratio ~6, 0 of step1.speed's
// 20 points when timed honestly).
//
// The trick needs no proxy, no helper process, no SIGCONT and nothing the
// lexical scan names. Two CUDA facts:
//
//  1. The runner answers a call only after cudaDeviceSynchronize() (remote.cu
//     serve()/cuda_trouble()), but that call synchronises the *current*
//     context. A context created with cuCtxCreate and left current when the
//     lab function returns (a "decoy") is the one the runtime then uses, so
//     the runner replies while the primary context still holds queued work.
//  2. That queued work can be a stream memory wait (cuStreamWaitValue32) on
//     c[0], a word of the grader's own buffer, followed by kernels. A stream
//     blocked on a wait runs nothing: the grader's idle probe and its settle
//     (empty kernels in its own context) see an idle GPU, and the runner's
//     SIGSTOP does not matter, since nothing on the CPU side is needed any more.
//
// The grader's prepare() of the next timed run (lab1 grader.cpp:177-180)
// refills a and b, then poisons c with a pattern whose exponent is always 0xE3
// (speed.cpp poison(): bit 30 always set; every a[i] + b[i] here has |x| < 2,
// bit 30 clear). The wait on "bit 30 of c[0] set" fires, and the slow kernel
// computes c from the fresh a and b in the untimed gap between prepare() and
// the timed call (the grader's cudaDeviceSynchronize, require_idle_gpu, whose
// probes give the kernel the GPU between them, and the base measurement:
// remote.cu call()). When the timed call comes, c is already right: the call
// reads two words, arms the next wait, and spins on the host until 1.3x the
// grader's DRAM floor (speed.cpp memory_floor_ms) has passed, so the time is
// valid and the ratio about 1.0-1.1. Every timed run is verified and right.
//
// The reference's runs use the same buffers, so their prepare() poisons c too.
// The wait chain therefore skips as many reference runs as compare_speed's
// order puts before the student's next run (warm-ups S R S R, then pairs
// S R, R S, S R, ...): each skipped run is "bit 30 set" (its prepare) then
// "bit 30 clear" (its kernel writes c[0]). The reference is never disturbed.
// A gate kernel checks, before computing, that c[0] holds a timed poison,
// that this chain is still the latest, and that the poison reached the end of
// c's guard zone (the size did not change), so a misaligned chain does nothing.
// The last timed call arms nothing, and step 2 (time_launches) drains any
// leftover wait first, so steps 2-4 run with nothing queued.
//
// A correct grader: 80 (step1.speed 0). Predicted for 7a79211: 100.
#include "lab1.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>
#include <memlab/resources.cuh>

#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace lab1 {

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kSlowBlocksPerSm = 1;       // the student's (slow) launch configuration
constexpr double kPadOverFloor = 1.3;     // the timed call lasts this many times the grader's floor
constexpr std::uint32_t kBit30 = 0x40000000u;
constexpr std::uint32_t kExponentMask = 0x7F800000u;
constexpr std::uint32_t kTimedPoison = 0x71800000u;  // speed.cpp poison(): exponent 0xE3, always
constexpr std::size_t kGuard = 256;                   // memlab::kGuardElements
constexpr unsigned long long kGateSpinNs = 20000000ull;  // the gate gives up after 20 ms
constexpr int kLastTimedCall = 23;  // 2 warm-ups + 21 pairs (judge_with_rerun's first attempt)

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The student's kernel: correct for any n, slow (few loads in flight).
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

// Host-mapped words the kernels and the host both read.
struct Mailbox {
  volatile std::uint32_t latest;  // the chain allowed to compute (0: none)
  volatile std::uint32_t done;    // the chain whose precompute finished
  volatile std::uint32_t first;   // c[0] and c[n-1], read back by peek()
  volatile std::uint32_t last;
};

// One thread: may this chain compute now? Writes the verdict to *go (device memory).
__global__ void gate_kernel(const std::uint32_t* c, std::size_t n, Mailbox* box, std::uint32_t chain,
                            std::uint32_t* go) {
  *go = 0;
  if (box->latest != chain) return;
  const volatile std::uint32_t* word = c;
  const std::uint32_t pattern = word[0];
  if ((pattern & kExponentMask) != kTimedPoison) return;  // NaN poison, or a value: not a timed run
  // The poison kernel may still be running: wait (bounded) until it has reached
  // the guard zone's last word and a few places inside c. If the run's size is
  // not this chain's n, the last word never gets the pattern: give up.
  const std::size_t places[5] = {n + kGuard - 1, n - 1, n / 2, n / 4, 3 * (n / 4)};
  const unsigned long long begin = global_ns();
  for (std::size_t place : places) {
    while (word[place] != pattern) {
      if (global_ns() - begin > kGateSpinNs) return;
      __nanosleep(2000);
    }
  }
  __threadfence();
  *go = chain;
}

__global__ void precompute_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n, const std::uint32_t* go, std::uint32_t chain) {
  if (*static_cast<const volatile std::uint32_t*>(go) != chain) return;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = __ldcg(a + i) + __ldcg(b + i);
  }
}

__global__ void finish_kernel(Mailbox* box, const std::uint32_t* go, std::uint32_t chain) {
  if (*static_cast<const volatile std::uint32_t*>(go) != chain) return;
  __threadfence_system();
  box->done = chain;
}

__global__ void peek_kernel(const std::uint32_t* c, std::size_t n, Mailbox* box) {
  box->first = c[0];
  box->last = c[n - 1];
  __threadfence_system();
}

__global__ void set_word_kernel(std::uint32_t* word, std::uint32_t value) { *word = value; }

// ---- driver functions, through the runtime (no libcuda link) ----------------

template <typename F>
F driver(const char* name, int version) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &function, version, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    return nullptr;
  }
  return reinterpret_cast<F>(function);
}

struct State {
  bool tried = false;
  bool usable = false;
  PFN_cuStreamWaitValue32_v11070 wait = nullptr;
  PFN_cuCtxSetCurrent_v4000 set_current = nullptr;
  CUcontext primary = nullptr;
  CUcontext decoy = nullptr;
  bool decoy_current = false;
  Mailbox* box = nullptr;     // host-mapped: the host's view
  Mailbox* box_device = nullptr;  // and the kernels'
  std::uint32_t* go = nullptr;  // device memory
  int sms = 0;
  double bytes_per_ms = 0.0;   // the grader's theoretical DRAM bandwidth
  std::size_t last_timed_n = 0;
  int timed_calls = 0;         // timed calls at the current size
  std::uint32_t chain = 0;     // the chain armed last
  std::vector<cudaStream_t> chains;  // streams that may still hold a wait
};

State& state() {
  static State s;
  return s;
}

bool set_up() {
  State& s = state();
  if (s.tried) return s.usable;
  s.tried = true;
  cudaFree(nullptr);  // the runtime's (primary) context exists and is current
  auto get_current = driver<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 12000);
  auto create = driver<PFN_cuCtxCreate_v12050>("cuCtxCreate", 12050);
  s.set_current = driver<PFN_cuCtxSetCurrent_v4000>("cuCtxSetCurrent", 12000);
  s.wait = driver<PFN_cuStreamWaitValue32_v11070>("cuStreamWaitValue32", 12000);
  auto attribute = driver<PFN_cuDeviceGetAttribute_v2000>("cuDeviceGetAttribute", 12000);
  int device = 0, nor = 0, clock_khz = 0, bus_bits = 0;
  if (!get_current || !create || !s.set_current || !s.wait || !attribute || cudaGetDevice(&device) != cudaSuccess) {
    return false;
  }
  attribute(&nor, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, device);
  cudaDeviceGetAttribute(&s.sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
  s.bytes_per_ms = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e3;  // device_facts.cu: theoretical_gbps
  if (!nor || s.bytes_per_ms <= 0 || get_current(&s.primary) != CUDA_SUCCESS || s.primary == nullptr) return false;
  CUctxCreateParams params = {};
  if (create(&s.decoy, &params, 0, device) != CUDA_SUCCESS) return false;
  s.set_current(s.primary);  // cuCtxCreate made the decoy current
  void* box = nullptr;
  if (cudaHostAlloc(&box, sizeof(Mailbox), cudaHostAllocMapped) != cudaSuccess) return false;
  s.box = static_cast<Mailbox*>(box);
  s.box->latest = s.box->done = 0;
  if (cudaHostGetDevicePointer(reinterpret_cast<void**>(&s.box_device), box, 0) != cudaSuccess) return false;
  if (cudaMalloc(&s.go, sizeof(std::uint32_t)) != cudaSuccess) return false;
  s.usable = true;
  return true;
}

// Every entry point starts in the primary context, with no error left over
// from what the runner did while the decoy was current.
void enter() {
  State& s = state();
  if (s.decoy_current) {
    s.set_current(s.primary);
    s.decoy_current = false;
  }
  cudaGetLastError();
}

// Leave with the decoy current while a chain may hold a wait: the runner's
// cudaDeviceSynchronize() then synchronises the empty decoy and returns at once.
void leave() {
  State& s = state();
  bool pending = false;
  for (cudaStream_t stream : s.chains) pending = pending || cudaStreamQuery(stream) == cudaErrorNotReady;
  cudaGetLastError();
  if (pending) {
    s.set_current(s.decoy);
    s.decoy_current = true;
  }
}

void launch_slow(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  const std::size_t blocks_for_n = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>(blocks_for_n, std::size_t{kSlowBlocksPerSm} * memlab::multiprocessor_count()));
  vector_add_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  MEMLAB_CHECK_LAUNCH();
}

// The reference runs whose prepare comes before the student's next one, after
// timed call number j (1-based) at this size: warm-ups S R S R, then pairs
// S R | R S | S R | R S ...
int reference_runs_before_next(int j) {
  if (j <= 2) return 1;
  return (j - 3) % 2 == 0 ? 2 : 0;
}

void arm(const float* a, const float* b, float* c, std::size_t n, int j) {
  State& s = state();
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return;
  s.chains.push_back(stream);
  const std::uint32_t chain = ++s.chain;
  s.box->latest = chain;
  const auto address = reinterpret_cast<CUdeviceptr>(c);
  const auto cu_stream = reinterpret_cast<CUstream>(stream);
  bool queued = true;
  for (int skip = reference_runs_before_next(j); skip > 0; --skip) {
    queued = queued && s.wait(cu_stream, address, kBit30, CU_STREAM_WAIT_VALUE_AND) == CUDA_SUCCESS;   // its prepare
    queued = queued && s.wait(cu_stream, address, ~kBit30, CU_STREAM_WAIT_VALUE_NOR) == CUDA_SUCCESS;  // its kernel
  }
  queued = queued && s.wait(cu_stream, address, kBit30, CU_STREAM_WAIT_VALUE_AND) == CUDA_SUCCESS;  // our prepare
  if (!queued) {  // no stream memory operations here: stay honest from now on
    s.usable = false;
    s.box->latest = 0;
  }
  gate_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<const std::uint32_t*>(c), n, s.box_device, chain, s.go);
  precompute_kernel<<<static_cast<unsigned>(kSlowBlocksPerSm * s.sms), kThreadsPerBlock, 0, stream>>>(a, b, c, n,
                                                                                                    s.go, chain);
  finish_kernel<<<1, 1, 0, stream>>>(s.box_device, s.go, chain);
  cudaGetLastError();
}

// Waits queued by chains that did not line up: c[0] is toggled until every
// chain's stream has passed them (the gate, cancelled, does nothing). The
// caller writes c afterwards.
void drain(float* c, cudaStream_t stream) {
  State& s = state();
  s.box->latest = 0;
  auto* word = reinterpret_cast<std::uint32_t*>(c);
  for (int round = 0; round < 32; ++round) {
    bool pending = false;
    for (cudaStream_t chain : s.chains) pending = pending || cudaStreamQuery(chain) == cudaErrorNotReady;
    if (!pending) break;
    set_word_kernel<<<1, 1, 0, stream>>>(word, round % 2 == 0 ? 0xFFFFFFFFu : 0u);
    cudaStreamSynchronize(stream);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  for (cudaStream_t chain : s.chains) cudaStreamDestroy(chain);
  s.chains.clear();
  cudaGetLastError();
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  const auto entered = std::chrono::steady_clock::now();
  enter();
  if (n == 0) {
    leave();
    return;
  }
  State& s = state();
  if (!set_up()) {
    launch_slow(a, b, c, n, stream);
    leave();
    return;
  }
  peek_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<const std::uint32_t*>(c), n, s.box_device);
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  const std::uint32_t first = s.box->first;
  const std::uint32_t last = s.box->last;
  const bool poisoned = (first & kExponentMask) == kTimedPoison;  // a timed run's fresh poison
  const bool precomputed = s.chain != 0 && s.box->done == s.chain && n == s.last_timed_n &&
                           (first & kExponentMask) != kTimedPoison && (last & kExponentMask) != kTimedPoison &&
                           first != 0xFFFFFFFFu && last != 0xFFFFFFFFu;
  if (!poisoned && !precomputed) {  // untimed (correctness checks: NaN poison)
    launch_slow(a, b, c, n, stream);
    leave();
    return;
  }
  // A timed run (the 2^31 check also poisons like one: it is seen once at its size and never armed).
  if (n != s.last_timed_n) {
    s.last_timed_n = n;
    s.timed_calls = 0;
  }
  const int j = ++s.timed_calls;
  if (!precomputed) {
    launch_slow(a, b, c, n, stream);
    MEMLAB_CHECK(cudaStreamSynchronize(stream));
  }
  if (j >= 2 && j < kLastTimedCall && n < (std::size_t{1} << 31)) arm(a, b, c, n, j);
  if (precomputed) {
    // The grader's floor is 12 n bytes at its theoretical bandwidth; a time
    // below it voids the check, so last a little longer.
    const double target_ms = kPadOverFloor * 12.0 * static_cast<double>(n) / s.bytes_per_ms;
    while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - entered).count() < target_ms) {
    }
  }
  leave();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  enter();
  if (!state().chains.empty()) drain(c, stream);  // step 2 runs with nothing queued
  std::vector<memlab::Event> start(launches);
  std::vector<memlab::Event> stop(launches);
  for (int i = 0; i < launches; ++i) {
    start[i].record(stream);
    launch_slow(a, b, c, n, stream);
    stop[i].record(stream);
  }
  std::vector<float> milliseconds(launches);
  for (int i = 0; i < launches; ++i) milliseconds[i] = memlab::Event::elapsed_ms(start[i], stop[i]);
  leave();
  return milliseconds;
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  enter();
  std::vector<std::size_t> footprints;
  for (double multiple : {0.125, 0.25, 0.375, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    footprints.push_back(static_cast<std::size_t>(multiple * static_cast<double>(l2_bytes)));
  }
  return footprints;
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  enter();
  return footprint_bytes <= l2_bytes;
}

}  // namespace lab1
