// Red team 20 (lab 3 step 2), host simulation. Build: g++ -O2 -std=c++17 -I../../../../common -o /tmp/sim_files sim_files.cpp -lpthread
// (from grader/corpus/red-team/round20/); run: /tmp/sim_files ROWS [SEED or BIG_SHARE]. Floats are IEEE single on x86-64 (SSE), no fast-math.
// Host simulation of the exact combine orders of the round-20 files.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
#include <thread>
#include "memlab/random.hpp"
static float spread_value(std::uint64_t seed, std::uint64_t index) {
  return static_cast<float>(std::pow(10.0, memlab::random_value<double>(seed, index, -3.0, 3.0)));
}
constexpr int N = 131072;
struct K { float s = 0, c = 0;
  void add(float x) { float y = x - c; float t = s + y; c = (t - s) - y; s = t; } float val() const { return s - c; } };
static void shfl_tree(std::vector<float>& v, int base, int n) { for (int off = n / 2; off > 0; off /= 2) for (int i = 0; i < off; ++i) v[base + i] += v[base + i + off]; }
// 01: block 256 threads, float4 loads, 4 component accumulators per thread, thread value (a0+a1)+(a2+a3),
// warp shuffle tree, then warp 0 adds the 8 warp sums by a shuffle tree of 8.
static float f01(const float* x) {
  std::vector<float> a(256 * 4, 0.f);
  for (int q = 0; q < N / 4; ++q) { int t = q % 256; for (int k = 0; k < 4; ++k) a[t * 4 + k] += x[4 * q + k]; }
  std::vector<float> v(256); for (int t = 0; t < 256; ++t) v[t] = (a[t*4] + a[t*4+1]) + (a[t*4+2] + a[t*4+3]);
  for (int w = 0; w < 8; ++w) shfl_tree(v, 32 * w, 32);
  std::vector<float> ws(8); for (int w = 0; w < 8; ++w) ws[w] = v[32 * w];
  shfl_tree(ws, 0, 8); return ws[0]; }
// 02: warp per row, 8 accumulators per lane, element c = lane + 32*(8*j + k) to acc k; lane value: ((a0+a1)+(a2+a3))+((a4+a5)+(a6+a7)); shuffle tree.
static float f02(const float* x, int acc) {
  std::vector<float> a(32 * acc, 0.f);
  for (int c = 0; c < N; ++c) { int lane = c % 32; int k = (c / 32) % acc; a[lane * acc + k] += x[c]; }
  std::vector<float> v(32);
  for (int l = 0; l < 32; ++l) { std::vector<float> t(a.begin() + l * acc, a.begin() + (l + 1) * acc); shfl_tree(t, 0, acc); v[l] = t[0]; }
  shfl_tree(v, 0, 32); return v[0]; }
// float4 step 1: lane reads float4 q = lane + 32 i; sum += (v.x + v.y) + (v.z + v.w)
static float f4pair(const float* x) {
  std::vector<float> s(32, 0.f);
  for (int q = 0; q < N / 4; ++q) { int l = q % 32; s[l] += (x[4*q] + x[4*q+1]) + (x[4*q+2] + x[4*q+3]); }
  shfl_tree(s, 0, 32); return s[0]; }
// 04: block per row of T threads, thread t Kahan over c = t + T*i, then shared atomicAdd of (s - c) in random order.
static float f04(const float* x, int T, std::mt19937& g) {
  std::vector<K> k(T); for (int c = 0; c < N; ++c) k[c % T].add(x[c]);
  std::vector<float> v(T); for (int t = 0; t < T; ++t) v[t] = k[t].val();
  std::shuffle(v.begin(), v.end(), g); float s = 0.f; for (float p : v) s += p; return s; }
// same with warps' order: warp-level compensated shuffle first then atomics of warp values (T/32 atomics)
int main(int argc, char** argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 256;
  std::uint64_t seed = argc > 2 ? strtoull(argv[2], 0, 0) : 12345;
  const char* names[] = {"01 block256 float4 comps", "02 warp 8 acc/lane", "02' warp 4 acc/lane", "step1 float4 (x+y)+(z+w)",
                         "04 block64 kahan shared atomics", "04 block96", "04 block128 kahan shared atomics", "04 block192", "04 block256"};
  const int V = sizeof(names) / sizeof(names[0]);
  std::vector<std::vector<double>> err(V, std::vector<double>(rows));
  const double u = std::ldexp(1.0, -24);
  auto work = [&](int r0, int r1) {
    std::vector<float> x(N); std::mt19937 g(r0 * 7 + 1);
    for (int r = r0; r < r1; ++r) {
      long double ex = 0;
      for (int c = 0; c < N; ++c) { x[c] = spread_value(seed, std::uint64_t(r) * N + c); ex += x[c]; }
      float got[V] = {f01(x.data()), f02(x.data(), 8), f02(x.data(), 4), f4pair(x.data()), f04(x.data(), 64, g), f04(x.data(), 96, g), f04(x.data(), 128, g), f04(x.data(), 192, g), f04(x.data(), 256, g)};
      for (int v = 0; v < V; ++v) err[v][r] = (double)(std::fabs((long double)got[v] - ex) / ex) / u;
    } };
  std::thread t1(work, 0, rows / 2), t2(work, rows / 2, rows); t1.join(); t2.join();
  printf("%d rows, seed %llu\n%-34s %7s %7s %7s %7s %7s %9s %9s %9s\n", rows, (unsigned long long)seed, "variant", "median", "p99", "p99.9", "max", "mean", "P(>8u)", "pass64", "pass368");
  for (int v = 0; v < V; ++v) {
    auto e = err[v]; std::sort(e.begin(), e.end());
    double mean = 0; int over = 0; for (double d : e) { mean += d; over += d > 8; }
    double p = over / double(rows);
    printf("%-34s %7.2f %7.2f %7.2f %7.2f %7.2f %9.5f %9.3f %9.3f\n", names[v], e[rows / 2], e[rows * 99 / 100], e[rows * 999 / 1000], e.back(), mean / rows, p, std::pow(1 - p, 64), std::pow(1 - p, 368));
  }
}
