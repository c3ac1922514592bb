// Red team 20 (lab 3 step 2), host simulation. Build: g++ -O2 -std=c++17 -I../../../../common -o /tmp/sim_survey sim_survey.cpp -lpthread
// (from grader/corpus/red-team/round20/); run: /tmp/sim_survey ROWS [SEED or BIG_SHARE]. Floats are IEEE single on x86-64 (SSE), no fast-math.
// Host simulation of lab 3 step 2 summation variants on spread rows (10^U(-3,3) as float).
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
#include <cstring>
#include <thread>
#include "memlab/random.hpp"
static float spread_value(std::uint64_t seed, std::uint64_t index) {
  return static_cast<float>(std::pow(10.0, memlab::random_value<double>(seed, index, -3.0, 3.0)));
}
constexpr int N = 131072;
static volatile float vz = 0.0f;  // keeps the compiler honest
struct K { float s = 0, c = 0;
  void add(float x) { float y = x - c; float t = s + y; c = (t - s) - y; s = t; }
  void merge_ref(const K& o) { float t = s + o.s; float op = t - s; float r = (s - (t - op)) + (o.s - op); c += o.c - r; s = t; }
  void merge_plain(const K& o) { s += o.s; c += o.c; }
  float val() const { return s - c; } };
static float tree(std::vector<float> v) { // shuffle-down style tree, size power of 2
  for (size_t off = v.size() / 2; off > 0; off /= 2) for (size_t i = 0; i < off; ++i) v[i] += v[i + off];
  return v[0]; }
// Variants return float sum of row x[0..N)
static float plain_lanes(const float* x, int lanes) {
  std::vector<float> a(lanes, 0.f);
  for (int c = 0; c < N; ++c) a[c % lanes] += x[c];
  return tree(a); }
// warp per row, `acc` independent accumulators per lane (unrolled loop), then lane-sequential combine, then tree
static float plain_warp_multi(const float* x, int acc) {
  std::vector<float> a(32 * acc, 0.f);
  for (int c = 0; c < N; ++c) { int lane = c % 32; int k = (c / 32) % acc; a[lane * acc + k] += x[c]; }
  std::vector<float> l(32, 0.f);
  for (int lane = 0; lane < 32; ++lane) { float s = a[lane * acc]; for (int k = 1; k < acc; ++k) s += a[lane * acc + k]; l[lane] = s; }
  return tree(l); }
// warp per row with float4 loads: lane reads x[4*(lane+32*i) .. +3], accumulates components separately, then adds them.
static float plain_warp_float4(const float* x) {
  std::vector<float> a(32 * 4, 0.f);
  for (int c = 0; c < N; ++c) { int q = c / 4; int lane = q % 32; a[lane * 4 + c % 4] += x[c]; }
  std::vector<float> l(32);
  for (int lane = 0; lane < 32; ++lane) l[lane] = (a[lane*4] + a[lane*4+1]) + (a[lane*4+2] + a[lane*4+3]);
  return tree(l); }
static float pairwise(const float* x, int n) { if (n <= 1) return n ? x[0] : 0.f; int h = n / 2; return pairwise(x, h) + pairwise(x + h, n - h); }
static float kahan_ref(const float* x, int lanes) {
  std::vector<K> k(lanes);
  for (int c = 0; c < N; ++c) k[c % lanes].add(x[c]);
  for (int off = lanes / 2; off > 0; off /= 2) for (int i = 0; i < off; ++i) k[i].merge_ref(k[i + off]);
  return k[0].val(); }
static float kahan_value_then_tree(const float* x, int lanes) {
  std::vector<K> k(lanes);
  for (int c = 0; c < N; ++c) k[c % lanes].add(x[c]);
  std::vector<float> v(lanes); for (int i = 0; i < lanes; ++i) v[i] = k[i].val();
  return tree(v); }
static float kahan_drop_c(const float* x, int lanes) {
  std::vector<K> k(lanes);
  for (int c = 0; c < N; ++c) k[c % lanes].add(x[c]);
  std::vector<float> v(lanes); for (int i = 0; i < lanes; ++i) v[i] = k[i].s;
  return tree(v); }
// row split into `chunks` contiguous chunks (blocks), each chunk reference-Kahan over a warp, atomically added in random order
static float kahan_chunks_atomic(const float* x, int chunks, std::mt19937& g) {
  std::vector<float> part(chunks);
  int len = N / chunks;
  for (int b = 0; b < chunks; ++b) {
    std::vector<K> k(32);
    for (int c = 0; c < len; ++c) k[c % 32].add(x[b * len + c]);
    for (int off = 16; off > 0; off /= 2) for (int i = 0; i < off; ++i) k[i].merge_ref(k[i + off]);
    part[b] = k[0].val(); }
  std::shuffle(part.begin(), part.end(), g);
  float s = 0.f; for (float p : part) s += p; return s; }
// Kahan-sum each lane, but atomicAdd per-warp results with row split into chunks handled by warps (block-per-row with 8 warps, atomics on shared?)
int main(int argc, char** argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 256;
  std::uint64_t seed = argc > 2 ? strtoull(argv[2], 0, 0) : 12345;
  const char* names[] = {"plain warp (32 lanes)", "plain block 256", "plain block 512", "plain block 1024",
                         "plain warp, 4 acc/lane", "plain warp, 8 acc/lane", "plain warp, 16 acc/lane", "plain warp float4 comps",
                         "pairwise float (recursive)", "kahan ref (warp)", "kahan value() then float tree", "kahan drop c at merge",
                         "kahan 8 chunks atomic", "kahan 32 chunks atomic", "kahan 128 chunks atomic", "kahan 512 chunks atomic"};
  const int V = sizeof(names) / sizeof(names[0]);
  std::vector<std::vector<double>> err(V, std::vector<double>(rows));
  const double u = std::ldexp(1.0, -24);
  auto work = [&](int r0, int r1) {
    std::vector<float> x(N);
    std::mt19937 g(r0 * 7 + 1);
    for (int r = r0; r < r1; ++r) {
      long double ex = 0;
      for (int c = 0; c < N; ++c) { x[c] = spread_value(seed, std::uint64_t(r) * N + c); ex += x[c]; }
      float got[V] = {plain_lanes(x.data(), 32), plain_lanes(x.data(), 256), plain_lanes(x.data(), 512), plain_lanes(x.data(), 1024),
                      plain_warp_multi(x.data(), 4), plain_warp_multi(x.data(), 8), plain_warp_multi(x.data(), 16), plain_warp_float4(x.data()),
                      pairwise(x.data(), N), kahan_ref(x.data(), 32), kahan_value_then_tree(x.data(), 32), kahan_drop_c(x.data(), 32),
                      kahan_chunks_atomic(x.data(), 8, g), kahan_chunks_atomic(x.data(), 32, g), kahan_chunks_atomic(x.data(), 128, g), kahan_chunks_atomic(x.data(), 512, g)};
      for (int v = 0; v < V; ++v) err[v][r] = (double)(std::fabs((long double)got[v] - ex) / ex) / u;
    } };
  std::thread t1(work, 0, rows / 2), t2(work, rows / 2, rows); t1.join(); t2.join();
  printf("%d rows, seed %llu\n%-32s %8s %8s %8s %8s %8s  P(>8u)\n", rows, (unsigned long long)seed, "variant", "median", "p90", "p99", "max", "mean");
  for (int v = 0; v < V; ++v) {
    auto e = err[v]; std::sort(e.begin(), e.end());
    double mean = 0; int over = 0; for (double d : e) { mean += d; over += d > 8; }
    printf("%-32s %8.2f %8.2f %8.2f %8.2f %8.2f  %.4f\n", names[v], e[rows / 2], e[rows * 9 / 10], e[rows * 99 / 100], e.back(), mean / rows, over / double(rows));
  }
}
