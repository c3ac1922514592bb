// Lab 1 red-team round 3, submission 02: the reference's timed calls made
// slower by work the student's runner left queued (against 7a79211).
//
// This is the hole grader/README.md already names ("Code in the student's
// runner could leave GPU work queued behind a wait on a value that the
// reference's run writes (cuStreamWaitValue32) ... Not seen in a submission
// yet"), as a submission, so that a fix can be tested. What it adds to that
// sentence: how the work stays queued although the runner synchronises before
// it answers (a decoy context, as in submission 01), and that nothing here
// needs a helper process, a proxy, a signal, or a name the scan knows.
//
// The student's kernel is honest and slow (one block of 256 threads per SM:
// ratio ~6, 0 of step1.speed's 20 points). It computes every timed run itself;
// nothing of the student's own work is hidden. After each of its timed calls
// it queues, per reference run that compare_speed puts before its next one:
//   wait until bit 30 of c[0] is set   (the reference's prepare(): poison)
//   wait until bit 30 of c[0] is clear (the reference's kernel wrote c[0])
//   a one-block kernel that sleeps for kJunkMs
// and leaves a decoy context current so that the runner's
// cudaDeviceSynchronize() does not wait for the queue. The sleeping kernel
// starts inside the reference's timed call; the grader's settle (remote.cu
// send_and_wait -> IdleProbe::settle) then waits for it, as designed ("work on
// any stream or context counts"), and charges it to the reference. The
// student's ratio becomes ~2.5 / (0.4 + kJunkMs).
//
// Separate buffers per side (the README's proposed fix) would stop this file,
// not file 01.
//
// A correct grader: 80 (step1.speed 0). Predicted for 7a79211: 100, with
// step1.speed's reference_ms about kJunkMs above run 26's figure.
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
constexpr int kSlowBlocksPerSm = 1;
constexpr double kJunkMs = 4.0;
constexpr std::uint32_t kBit30 = 0x40000000u;
constexpr std::uint32_t kExponentMask = 0x7F800000u;
constexpr std::uint32_t kTimedPoison = 0x71800000u;  // speed.cpp poison(): exponent 0xE3, always
constexpr int kLastTimedCall = 23;                   // 2 warm-ups + 21 pairs

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

// Occupies the GPU (one resident block) for @p ns, touching no memory of the grader's.
__global__ void junk_kernel(unsigned long long ns, const volatile std::uint32_t* cancelled) {
  const unsigned long long end = global_ns() + ns;
  while (global_ns() < end && *cancelled == 0) __nanosleep(1000);
}

__global__ void peek_kernel(const std::uint32_t* c, std::uint32_t* out) { *out = c[0]; }
__global__ void set_word_kernel(std::uint32_t* word, std::uint32_t value) { *word = value; }

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
  std::uint32_t* mailbox = nullptr;  // host-mapped: [0] c[0] read back, [1] cancel flag
  std::uint32_t* mailbox_device = nullptr;  // the kernels' view of it
  std::size_t last_timed_n = 0;
  int timed_calls = 0;
  std::vector<cudaStream_t> chains;
};

State& state() {
  static State s;
  return s;
}

bool set_up() {
  State& s = state();
  if (s.tried) return s.usable;
  s.tried = true;
  cudaFree(nullptr);
  auto get_current = driver<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 12000);
  auto create = driver<PFN_cuCtxCreate_v12050>("cuCtxCreate", 12050);
  auto attribute = driver<PFN_cuDeviceGetAttribute_v2000>("cuDeviceGetAttribute", 12000);
  s.set_current = driver<PFN_cuCtxSetCurrent_v4000>("cuCtxSetCurrent", 12000);
  s.wait = driver<PFN_cuStreamWaitValue32_v11070>("cuStreamWaitValue32", 12000);
  int device = 0, nor = 0;
  if (!get_current || !create || !attribute || !s.set_current || !s.wait || cudaGetDevice(&device) != cudaSuccess) {
    return false;
  }
  attribute(&nor, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, device);
  if (!nor || get_current(&s.primary) != CUDA_SUCCESS || s.primary == nullptr) return false;
  CUctxCreateParams params = {};
  if (create(&s.decoy, &params, 0, device) != CUDA_SUCCESS) return false;
  s.set_current(s.primary);
  void* box = nullptr;
  if (cudaHostAlloc(&box, 2 * sizeof(std::uint32_t), cudaHostAllocMapped) != cudaSuccess) return false;
  s.mailbox = static_cast<std::uint32_t*>(box);
  s.mailbox[0] = s.mailbox[1] = 0;
  if (cudaHostGetDevicePointer(reinterpret_cast<void**>(&s.mailbox_device), box, 0) != cudaSuccess) return false;
  s.usable = true;
  return true;
}

void enter() {
  State& s = state();
  if (s.decoy_current) {
    s.set_current(s.primary);
    s.decoy_current = false;
  }
  cudaGetLastError();
}

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

// Reference runs between timed call j (1-based) and the student's next one:
// warm-ups S R S R, then pairs S R | R S | S R ... The last call's pair ends with one.
int reference_runs_before_next(int j) {
  if (j <= 2 || j >= kLastTimedCall) return 1;
  return (j - 3) % 2 == 0 ? 2 : 0;
}

void arm(float* c, int j) {
  State& s = state();
  const int runs = reference_runs_before_next(j);
  if (runs == 0) return;
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return;
  s.chains.push_back(stream);
  const auto address = reinterpret_cast<CUdeviceptr>(c);
  const auto cu_stream = reinterpret_cast<CUstream>(stream);
  for (int run = 0; run < runs; ++run) {
    bool queued = s.wait(cu_stream, address, kBit30, CU_STREAM_WAIT_VALUE_AND) == CUDA_SUCCESS;   // its prepare
    queued = queued && s.wait(cu_stream, address, ~kBit30, CU_STREAM_WAIT_VALUE_NOR) == CUDA_SUCCESS;  // its kernel
    if (!queued) {
      s.usable = false;
      return;
    }
    junk_kernel<<<1, 32, 0, stream>>>(static_cast<unsigned long long>(kJunkMs * 1e6), s.mailbox_device + 1);
  }
  cudaGetLastError();
}

// Before step 2: cancel the sleepers and move every queue past its waits.
void drain(float* c, cudaStream_t stream) {
  State& s = state();
  s.mailbox[1] = 1;
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
  peek_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<const std::uint32_t*>(c), s.mailbox_device);
  MEMLAB_CHECK(cudaStreamSynchronize(stream));
  const bool timed = (s.mailbox[0] & kExponentMask) == kTimedPoison;
  launch_slow(a, b, c, n, stream);  // the student's own work, always done, in the call
  if (timed && n < (std::size_t{1} << 31)) {
    if (n != s.last_timed_n) {
      s.last_timed_n = n;
      s.timed_calls = 0;
    }
    const int j = ++s.timed_calls;
    if (j >= 2 && j <= kLastTimedCall) {
      MEMLAB_CHECK(cudaStreamSynchronize(stream));  // c[0] holds the value before the waits are queued
      arm(c, j);
    }
  }
  leave();
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  enter();
  if (!state().chains.empty()) drain(c, stream);
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
