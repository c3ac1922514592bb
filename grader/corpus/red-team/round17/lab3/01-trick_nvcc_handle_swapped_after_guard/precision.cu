// Red team 17, lab 3, file 01: the runtime's handle for nvcc's own registration is reachable
// by a name that nvcc itself declares, and the fatbin behind it can be swapped after the guard.
//
// cudafe++ writes `static void **__nv_fatbinhandle_for_managed_rt;` at the top of every file's
// host code, and nvcc's registration stores there the handle that __cudaRegisterFatBinary
// returned. In libcudart 13 that handle is a runtime object whose first field is the wrapper
// the runtime was given (here: the runner's private copy, whose fatbin passed the guard);
// __cudaRegisterFatBinary and __cudaRegisterFatBinaryEnd only record it, and the fatbin is read
// when modules are loaded, later. This file declares the variable `extern` (legal C++: it then
// names nvcc's static), and a static object's constructor (which runs after nvcc's registration,
// before the runner's first CUDA call) points the handle at a wrapper of its own. That wrapper
// holds a fatbin of this same file compiled with RT17_SWAPPED_IN (step 2's kernel adds in
// double; same kernel names, sm_90 only, compressed): the kernels nvcc registered by name are
// then loaded from it.
//
// The guard sees only nvcc's fatbin; the method checks read nvcc's kept fatbin (Kahan in float).
// No forbidden name (`__nv_fatbinhandle_for_managed_rt` is in no list), no asm, no import, no
// registration call, no memory walked. The kernels sit in a named namespace (not an anonymous
// one) so that their names do not depend on the path the grader stages the file at.
// What it should get: forbidden API (or refused by the runner).
// Lab 3 reference solution: float vs double.
//
// Same interface as labs/lab3_precision/precision.cu (declared in lab3.cuh).
// The grader runs it beside the student's file and compares the two.

#include "lab3.cuh"

#include <memlab/cuda_check.cuh>
#include <memlab/launch.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace lab3 {

namespace detail {

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

// ---- Step 2: compensated summation in float -------------------------------

// Kahan's idea: `compensation` holds what the last additions lost to rounding
// (negated), and is subtracted from the next term before it is added. The
// lost part of t = sum + y is exactly (t - sum) - y: IEEE arithmetic without
// --use_fast_math evaluates it as written, so nvcc must not simplify it to 0.
struct Compensated {
  float sum = 0.0f;
  float compensation = 0.0f;

  __device__ void add(float x) {
    const float y = x - compensation;
    const float t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  // Adds another lane's (sum, compensation). The rounding error of the two sums'
  // addition is recovered exactly (Knuth's two-sum) and kept in the compensation.
  __device__ void merge(const Compensated& other) {
    const float t = sum + other.sum;
    const float other_part = t - sum;
    const float rounding = (sum - (t - other_part)) + (other.sum - other_part);
    compensation += other.compensation - rounding;
    sum = t;
  }
  __device__ float value() const { return sum - compensation; }
};

// Memory pattern: the same as row_sums_kernel (one warp per row, coalesced);
// the extra floating-point work (4 operations per element instead of 1) hides
// under the loads, so the compensated sum costs (almost) no time.
__global__ void row_sums_compensated_kernel(const float* __restrict__ matrix, float* __restrict__ sums,
                                            std::size_t rows, std::size_t cols) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  if (row >= rows) return;
  const float* line = matrix + row * cols;
#ifdef RT17_SWAPPED_IN
  // The code the GPU runs instead: the row added up in double.
  double exact = 0.0;
  for (std::size_t c = lane; c < cols; c += kWarpSize) exact += line[c];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) exact += __shfl_down_sync(kFullWarp, exact, offset);
  if (lane == 0) sums[row] = static_cast<float>(exact);
  return;
#endif
  Compensated total;
  for (std::size_t c = lane; c < cols; c += kWarpSize) total.add(line[c]);
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Compensated other;
    other.sum = __shfl_down_sync(kFullWarp, total.sum, offset);
    other.compensation = __shfl_down_sync(kFullWarp, total.compensation, offset);
    total.merge(other);
  }
  if (lane == 0) sums[row] = total.value();
}

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

}  // namespace detail

using namespace detail;

void row_sums(const float* matrix, float* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums(const double* matrix, double* sums, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  launch_row_sums(matrix, sums, rows, cols, stream);
}

void row_sums_compensated(const float* matrix, float* sums, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0) return;
  row_sums_compensated_kernel<<<warp_per_row_blocks(rows), kThreadsPerBlock, 0, stream>>>(matrix, sums, rows,
                                                                                          cols);
  MEMLAB_CHECK_LAUNCH();
}

void polynomial(const float* x, float* y, std::size_t n, cudaStream_t stream) { launch_polynomial(x, y, n, stream); }

void polynomial(const double* x, double* y, std::size_t n, cudaStream_t stream) {
  launch_polynomial(x, y, n, stream);
}

}  // namespace lab3

#ifndef RT17_SWAPPED_IN
// nvcc's own variable (cudafe++ defines it static at the top of the host code).
extern void** __nv_fatbinhandle_for_managed_rt;

namespace {

alignas(8) const unsigned long long kSwappedIn[] = {
    0x00100001ba55ed50ull, 0x0000000000000dc0ull, 0x0000004001010002ull, 0x0000000000000d80ull,
    0x0000000000000d79ull, 0x0000005a00010008ull, 0x0000000000000000ull, 0x0000000000008011ull,
    0x0000000000000000ull, 0x00000000000087b8ull, 0x7d86b860fd2fb528ull, 0x904918c473ea006bull,
    0x02d59d3a040e715cull, 0x27559216625a75e4ull, 0x0a799cefdb7c2000ull, 0x8d0ed9e821c26230ull,
    0x76b2616994d70b6aull, 0xe7fa0bedad32c507ull, 0xaea80ba841151a40ull, 0x4246a56a8bed0ed0ull,
    0xa772b95cae564b4bull, 0xd638016f01680196ull, 0x71eb365e0db7a888ull, 0xb108048f41e7a130ull,
    0xc444a45b59f4f2eeull, 0x0a053c32948ed516ull, 0x03820c59032c13b1ull, 0x032cedcd6eb5c5d6ull,
    0xa3b649b1cb66cd5cull, 0x0d2522db623b5b5cull, 0x7fc7849bb9756b8full, 0x3a1b0e862c0d36ebull,
    0x93fff8f23ff1089cull, 0x8ec8f005201f9149ull, 0x6bc3bd8333913232ull, 0x5f274d78f0eff77aull,
    0x8c057df7debe1fcaull, 0x0086012eac38d1d0ull, 0xe70f230344ac5110ull, 0xd5501c80a8a95eccull,
    0xad5e721ba50b3ff5ull, 0x40aa3c564d3815c2ull, 0x7642b07fd8453915ull, 0x3f105742daa583fdull,
    0xdad51ed70d187ffcull, 0x066203f103366c99ull, 0x8d1c5ce593366923ull, 0x34682548b9218b66ull,
    0x446c92e1cda92e59ull, 0x66fd6ce5b3976deeull, 0x6b6dad5a8bbb6b74ull, 0xccda76d48bbd8f6eull,
    0x79a20b445b90d285ull, 0xc92e2d737229fa08ull, 0xe12921c34680f09dull, 0x8b268d023d6c3166ull,
    0x917b738bba30b915ull, 0x8941ecd21c235bdbull, 0x7e7e30410f0999a0ull, 0x98beeea4dcd43a8aull,
    0x66aed25b2423dad5ull, 0x6e736a3b50704dbbull, 0x8427ad6d43080491ull, 0xcfb17373a72c598aull,
    0x12860c511b2437b5ull, 0x831722f474968d91ull, 0xebd8a4b673731491ull, 0xec5da433708c928aull,
    0xb1708ce1cf5cda87ull, 0xfd1f7853e2f3ef01ull, 0x0f228e3d4933f22aull, 0xe6208031bfc794beull,
    0x723877fa2987e1f0ull, 0xf1f227d1be894218ull, 0xfb9eb9cbc2b08bc0ull, 0x2ff3888af9ca7eb0ull,
    0xb18871d3a758bdfcull, 0x9f3d67f845cc3782ull, 0xcc036103b40766d2ull, 0x754fefa0f401d163ull,
    0xae16b9e3877f2ec0ull, 0x73ac7fa9a888bc17ull, 0xdf1fc5165fbee7b0ull, 0x9fa92e5cadfa92e6ull,
    0x4d778c1100b3f91aull, 0xe43ba1fa66fcb1cfull, 0xb107d4978cdea466ull, 0xe5ce7af7593a75b8ull,
    0x0329ffc6e501953full, 0xf3c7fdcc61752bcaull, 0xe78d52f3e17defdfull, 0xd7f7f248eea30bbeull,
    0xf9e2093fde43e648ull, 0x3795b917daa73797ull, 0x416fce97f96e84a7ull, 0x3e084bcc58f1ef3dull,
    0x5a280ca5ff1ce17dull, 0x7d7f61bfc7b19406ull, 0x0bfe57dcf3a7608aull, 0xba495f406e71a8ceull,
    0x6e36df7defd2e0e2ull, 0xacecf9b91508e4deull, 0x1c58af276aea6ea4ull, 0xe53d7fe4093a8c76ull,
    0xef35fe3fd7f9335full, 0xfb2d7fa0ebfd0b5full, 0xbc9d9dfa96bfecd7ull, 0xeeac2cfc84b35b03ull,
    0xc7ff902c274b3f32ull, 0x03bfe1670419026full, 0x6ba0535df0a0ffc2ull, 0x1f99bff213c8070aull,
    0x2f863820c43ff8d4ull, 0xaebc49ff8c41f88aull, 0xa68fff9a89ebfaebull, 0xc22af1a9e6f2ab9cull,
    0x2b01a916048f6c31ull, 0xe69a6a280a4330abull, 0xf36c45884af95fdbull, 0xe3a4c9e9237ea7a5ull,
    0x2d32d3473d6d88dfull, 0x2ee5dcbc9bd69f53ull, 0x63deb7b9a4f5af37ull, 0x96f8e93248fd6fc8ull,
    0xa4cd4ebe9f61dd16ull, 0x4747ad8af1229c23ull, 0x74e345ee40181d26ull, 0x6b406e7b07b4bd9full,
    0x5ef695fdd1563552ull, 0xa47a4e5ba765f6e5ull, 0x51a7fd439e9a9f4cull, 0x1f7af7b28113a655ull,
    0x3ef77847b0549dceull, 0x18770776ff93eec3ull, 0xb26a9404f2899f9eull, 0x2061d9ea95f730bfull,
    0x51112b1f7b0ed557ull, 0xf6933c3dff61dae7ull, 0xa9d6777a91aa3fd0ull, 0xe4ee5de50f9c7868ull,
    0x49a7d35dabd98eadull, 0x00c6fefff2f65556ull, 0xd4ea9d11548d153aull, 0x30ae72d88bd01820ull,
    0x023a6e6153ad52adull, 0x48d73f7e5bc22e60ull, 0x82cb4d30d4b339bdull, 0xca84c94dd4b1d23dull,
    0x5cebebfd526985d7ull, 0x5907d58abb2de613ull, 0xd79ad51d6f7959ceull, 0x8f1525aadaa02717ull,
    0xb2a9157aa4bceef5ull, 0x58c9579e08eef1b2ull, 0xddf249fb55bb5fd5ull, 0xe61d6373f7f8675full,
    0x70c80c5fde45abdfull, 0xedd094e19fbf7daaull, 0x298d4fe2790c4ebbull, 0xf1d81a9fadd4512dull,
    0x78503ccc43519eafull, 0x020ff2badf043ac4ull, 0xff16aecc6874df10ull, 0xffbfffffffecea12ull,
    0xb12b2a52a94bffffull, 0xbb64f9e0cc983456ull, 0xe193bc5c763123a0ull, 0xb8ba1f48abfd2813ull,
    0x02d41645bba4638bull, 0x01d6d67bc0081ec8ull, 0x09c00b21d9b21278ull, 0x9271c0b21289815cull,
    0xa8700c5660ac97b3ull, 0x09b9f07dbd42828aull, 0xbb927093cece17f9ull, 0x404c55e473e13075ull,
    0x49db59fe5f8493bcull, 0x5327f85a886ed10bull, 0x7a279e6a5f2d34cdull, 0x68bcb7e6965a279eull,
    0xb3cba7b3a89e7b0cull, 0xdfda7c7f51074417ull, 0x494554a7ef79a57bull, 0xe4e34d19ce68a29eull,
    0x2a8ad96b7c79e809ull, 0xc05a3c3943a70c3bull, 0xeca5a5bf538940d4ull, 0x715b210fd4e2a431ull,
    0xb3983ea75451b92aull, 0xb950180a5d679f4aull, 0x38a5659febc43ec2ull, 0x68a339ded6e6492aull,
    0x3aa7fea5945129f6ull, 0x5926e6e5aa49644dull, 0x63ab22747b451472ull, 0x486bbb369f1e54aeull,
    0xf5dd93322eeea49bull, 0x98e32bfafa7d7764ull, 0x52b0fbd760b5281aull, 0xa0af227ae7b34af6ull,
    0x4d4f993ff4ffdfadull, 0x840ff9f87b1bda28ull, 0x0659a69a64e7bacaull, 0xff205fdecb3f1f73ull,
    0x8b2f87d85dd9e89dull, 0x98af32a5dda282b0ull, 0x5519d98e7e6f2f26ull, 0x5143fe7aeae59545ull,
    0xae4913e69ac314d3ull, 0x833455450ad439f8ull, 0x8d14c8493282a8d5ull, 0xa231a490520a4888ull,
    0xe8425240e386200bull, 0x7188314340121e64ull, 0x8421888220c43318ull, 0x4444444444440910ull,
    0xe104070c92492444ull, 0x619f4518ad8f3e0bull, 0x116c5dc6ece19b86ull, 0xf756e8c782c8f81bull,
    0x7429d80940dc988aull, 0xcda1a2e0911a99cdull, 0x4819367206fb7759ull, 0x7e0f9a2a37f9c47eull,
    0xb8a347e0eb9a6e34ull, 0x70f5ae32867f70e9ull, 0xcc0a84335100f95eull, 0xcae1831051eb6b09ull,
    0x62ca043883c0a00dull, 0x606ff05eeb3977d9ull, 0xffc1a9b920c919caull, 0x7f78263778d76213ull,
    0xb6e1b796a829e7a8ull, 0x89f80ab5caa81b01ull, 0x07a86031550c705cull, 0xcd8eb701bf0606f5ull,
    0x6226603f212a666eull, 0xe8fe7fa1f99198b1ull, 0x0853739940ffe0cfull, 0x3b66dc2b3686a8f8ull,
    0xbd13464c73106b3eull, 0xfee0614aaf7f7434ull, 0x0e11e8e7ca3a6e7eull, 0x1799fa3d62339b91ull,
    0xf3238782a8205e64ull, 0x4bfe9765c18e6e6cull, 0x333e17936be8313aull, 0x4d844e07f8cb383eull,
    0xaead342eabdc2a0full, 0xe503d90302982facull, 0xf73321b815de2827ull, 0x48281484802733dcull,
    0x133d5a8c774fdcfeull, 0x9c6d338f752d0076ull, 0xa543337e3539af00ull, 0xe0074dcf6c049cdbull,
    0xc3834a2e68117471ull, 0x0c7da5f473361316ull, 0x45197f2dd1d180fcull, 0x867f8e35ff5b8e44ull,
    0xfbbbc327e2e41f1cull, 0x6db35a9ee7133287ull, 0xe068e7d99c6c0479ull, 0x24ce27e4e1b1c11full,
    0xc4d7ed48a90b73fdull, 0xd193930b4c877583ull, 0x93b1ad54cf8efce3ull, 0x767e0fbc4133b64full,
    0x61bb9c6f677f13e0ull, 0x80717e9b40774265ull, 0x8304749f07b9db89ull, 0x03a5e473c44cf47full,
    0x3914ac83293234c1ull, 0xe3f82599c97cea66ull, 0x1cf0119a22392373ull, 0x05c9d7e5b54454deull,
    0xe09d16e6a4d2e794ull, 0x637b1a36f4116d8aull, 0x45e5f51db7b1d7f5ull, 0xbc6249db6eca71d6ull,
    0xf40c2a67c1b5c054ull, 0xfb1468fc3e0e8f0cull, 0xbb219e7cbf767a19ull, 0x60c939862a34f767ull,
    0xfd302ac36c0ee578ull, 0xc07f38ae25976326ull, 0x8c10527046be26d8ull, 0xc39c468da7690006ull,
    0x92f10da62813866eull, 0xcffd12a00f8aca11ull, 0x07905c8dcbf0f887ull, 0xdcfdfa1abb8cca03ull,
    0x159a64f8ca4b8326ull, 0xa840d0b0605ace5full, 0x84fce78c3fc01f19ull, 0xc29e70571a1c2868ull,
    0xe55da89ab2033807ull, 0xa9e0379ccaefcf1cull, 0xcfc04c4fb003501eull, 0x600fff95a9d4324eull,
    0x9e5f291b4703a988ull, 0x1c51e21ccd308001ull, 0xaf6061bbcdc63400ull, 0x0c7a3f3409390155ull,
    0xef55c730f000776bull, 0x1160e69ae45d4741ull, 0x270927bcaad19934ull, 0xd0e7f85200eef1a0ull,
    0xcda12f8e50b530aaull, 0xe500933e8956b861ull, 0xc4943df7234fefc0ull, 0xb069c4a1fec72724ull,
    0x0150ec8d24622ea3ull, 0x8d78fc229da3fd11ull, 0xeb8c921aaf4e15f9ull, 0x8ebeb170b97306fbull,
    0xdd9f71ffb69e9107ull, 0x0eeea3573aa8c375ull, 0x51cc48d51a66e1a6ull, 0x444c3dc6adf41842ull,
    0x34ea703ef4c2a493ull, 0x3d7378cc070d4f79ull, 0x387f83c963ac9cf0ull, 0xe66f0b288c0411f2ull,
    0xa6e6a5b3e388e53cull, 0x6012038359982d5full, 0x9a3128754773d242ull, 0x4f369936980b4539ull,
    0xca9329869288cc79ull, 0xcbb1cda8d6348290ull, 0x659a90a748d3b20dull, 0xf4c54ce7e107c880ull,
    0xc4892aad79ee7565ull, 0x0a07715337e24f8cull, 0x140cbd35a6371071ull, 0xe04928c71a268c33ull,
    0x41125deb4bdd3ce3ull, 0x241a3b8c789afc88ull, 0x401e1349f9269611ull, 0x4c389b22e0322873ull,
    0xed93923411fc8497ull, 0x9ce123d35999689eull, 0x9d481cde0fae73a0ull, 0x86b30e95e30999baull,
    0xa01906a03cc07fb6ull, 0x88e4fdb873044133ull, 0x351dd92793f66a26ull, 0xc01da6a67962e648ull,
    0x6072463b9a868166ull, 0x386827b59ba5f221ull, 0xd2719906891b4d93ull, 0xb00305ef866713a0ull,
    0x2646776e804d9607ull, 0x84393e9c58364f8bull, 0x1d07b54789f42a1cull, 0xee572f9b197e4e67ull,
    0xc0f3271ba73d9444ull, 0xc4d16eef4b541b28ull, 0x179f1c9a3334408cull, 0x6882789fb180c115ull,
    0x1b0e189a2ffd8607ull, 0xb398cf44a3ff6217ull, 0x5fb1008fae179eacull, 0x0556c3c98118b7e0ull,
    0x652f234ebebfd849ull, 0xa2a8c0d801c28c0dull, 0x80b630304ddf3f0aull, 0x55d1cbaf105d0f11ull,
    0xc363c3fa0606899eull, 0x786ae2181e1b87efull, 0x3c945a76703c5b86ull, 0x4a153ae196105016ull,
    0xbfdbf21d5e8198afull, 0x50c13a0cfdc0e890ull, 0xb74d0231c67d8787ull, 0x5864c63c520d1359ull,
    0x2672aaf329ef9203ull, 0x18de48bb43fd0a36ull, 0xc3bc4806a9099408ull, 0x07fbd19376286447ull,
    0x680412151b3ea890ull, 0x086762931ce123acull, 0x86570ab8546c88b9ull, 0x25a85fdc8dc99322ull,
    0x40ea7374380039e0ull, 0x0d7c4810c0a53e74ull, 0xc5347a8677cd1d11ull, 0x6bc7bc6e11c8c790ull,
    0x870709db1d703da4ull, 0xa3571a6f44f5147dull, 0x837727b6f984ece7ull, 0xb66839c9e73befe2ull,
    0xa332293aa8fdd10bull, 0xc9fd03ccdd760933ull, 0x981b2f2ac754adeaull, 0xcb6b48be8daec7c1ull,
    0x37d88355fda4d6f0ull, 0x30dbaf828340a533ull, 0x286d31b2c33d84e0ull, 0x0c59a7a6b44c3230ull,
    0x4de00a498c88cbd6ull, 0x87e67b5eb0fc6d5bull, 0xa19baa5e3deef08full, 0xc981f31686deab8bull,
    0x0050519e36c763f6ull, 0xc7cb5b4f01e6b333ull, 0x88b77d095832322full, 0x71c271af446b09ccull,
    0xdbab429b25a72f20ull, 0xaab7f27634fb8f21ull, 0x6c7a8c0fb73c9aa6ull, 0x8087d4ee886200caull,
    0xe3b0802e6a2af313ull, 0x02d973f3a71a57acull, 0x4d67f64d7d82a717ull, 0x5ef951081a35c3eeull,
    0x8ddbd966a02e4ccaull, 0x5085c4664f362762ull, 0xfb9a2c6a0d17b899ull, 0x4b67ca309c6b11a7ull,
    0x0f2820489756025eull, 0x4b2dbd0c76a519d3ull, 0xbb41fc557f4af4f7ull, 0x8da055736f6d250full,
    0xb151be6faa03f42bull, 0xe7f6eb75f5041bbcull, 0x57373cc6477ad9ffull, 0x69c2c1a2ec00ac9aull,
    0xa69cd049c2023c67ull, 0x957939e0a8e29d0aull, 0x774d1924e4a236e1ull, 0x41b4e68651014c8bull,
    0x9649490066cc6eedull, 0x91a1973bbbba2d50ull, 0x7b46cb7c22a85f01ull, 0x06bca1fc9faae551ull,
    0xac176cd82673dbe7ull, 0x73eb92531b2e17e8ull, 0x912aa276b015f5e5ull, 0x7b47518f2b987d66ull,
    0xcb98d548d33a2a37ull, 0x0000000000000009ull,
};

struct Wrapper {
  int magic;
  int version;
  const void* data;
  void* unused;
};
const Wrapper kSwappedInWrapper = {0x466243b1, 1, kSwappedIn, nullptr};

struct Swap {
  Swap() {
    if (__nv_fatbinhandle_for_managed_rt == nullptr) return;
    const auto* before = static_cast<const Wrapper*>(*__nv_fatbinhandle_for_managed_rt);
    *__nv_fatbinhandle_for_managed_rt = const_cast<Wrapper*>(&kSwappedInWrapper);
    if (std::getenv("MEMLAB_RT17_TRACE") != nullptr)  // for the red team's measurement only
      std::fprintf(stderr, "rt17: handle %p held wrapper %p (magic %x, fatbin at %p); now %p (fatbin at %p)\n",
                   static_cast<void*>(__nv_fatbinhandle_for_managed_rt), static_cast<const void*>(before),
                   before->magic, before->data, static_cast<const void*>(&kSwappedInWrapper), kSwappedInWrapper.data);
  }
} swap;

}  // namespace
#endif
