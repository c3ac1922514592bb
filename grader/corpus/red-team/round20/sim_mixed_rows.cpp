// Red team 20 (lab 3 step 2), host simulation. Build: g++ -O2 -std=c++17 -I../../../../common -o /tmp/sim_mixed_rows sim_mixed_rows.cpp -lpthread
// (from grader/corpus/red-team/round20/); run: /tmp/sim_mixed_rows ROWS [SEED or BIG_SHARE]. Floats are IEEE single on x86-64 (SSE), no fast-math.
// Would mixed-magnitude rows tell compensation from "many plain partial sums"?
// Row: 1% of terms big (1e4 * 10^U(0,0.3)), 99% small (U(3e-4, 4.8e-4)), in random places.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
constexpr int N = 131072;
struct K { float s = 0, c = 0;
  void add(float x) { float y = x - c; float t = s + y; c = (t - s) - y; s = t; }
  void merge_ref(const K& o) { float t = s + o.s; float op = t - s; float r = (s - (t - op)) + (o.s - op); c += o.c - r; s = t; }
  float val() const { return s - c; } };
static void tree(std::vector<float>& v, int base, int n) { for (int off = n / 2; off > 0; off /= 2) for (int i = 0; i < off; ++i) v[base + i] += v[base + i + off]; }
static float plain_lanes(const float* x, int lanes) { std::vector<float> a(lanes, 0.f); for (int c = 0; c < N; ++c) a[c % lanes] += x[c]; tree(a, 0, lanes); return a[0]; }
static float f01(const float* x) { std::vector<float> a(1024, 0.f); for (int q = 0; q < N / 4; ++q) for (int k = 0; k < 4; ++k) a[(q % 256) * 4 + k] += x[4 * q + k];
  std::vector<float> v(256); for (int t = 0; t < 256; ++t) v[t] = (a[t*4] + a[t*4+1]) + (a[t*4+2] + a[t*4+3]);
  for (int w = 0; w < 8; ++w) tree(v, 32 * w, 32); std::vector<float> ws(8); for (int w = 0; w < 8; ++w) ws[w] = v[32 * w]; tree(ws, 0, 8); return ws[0]; }
static float f02(const float* x) { std::vector<float> a(256, 0.f); for (int c = 0; c < N; ++c) a[(c % 32) * 8 + (c / 32) % 8] += x[c];
  std::vector<float> v(32); for (int l = 0; l < 32; ++l) { std::vector<float> t(a.begin() + l * 8, a.begin() + l * 8 + 8); tree(t, 0, 8); v[l] = t[0]; } tree(v, 0, 32); return v[0]; }
static float pairwise(const float* x, int n) { if (n <= 1) return n ? x[0] : 0.f; int h = n / 2; return pairwise(x, h) + pairwise(x + h, n - h); }
static float kahan_ref(const float* x) { std::vector<K> k(32); for (int c = 0; c < N; ++c) k[c % 32].add(x[c]);
  for (int off = 16; off > 0; off /= 2) for (int i = 0; i < off; ++i) k[i].merge_ref(k[i + off]); return k[0].val(); }
static float f04(const float* x, std::mt19937& g) { std::vector<K> k(128); for (int c = 0; c < N; ++c) k[c % 128].add(x[c]);
  std::vector<float> v(128); for (int t = 0; t < 128; ++t) v[t] = k[t].val(); std::shuffle(v.begin(), v.end(), g); float s = 0; for (float p : v) s += p; return s; }
static float kahan_value_tree(const float* x) { std::vector<K> k(32); for (int c = 0; c < N; ++c) k[c % 32].add(x[c]);
  std::vector<float> v(32); for (int i = 0; i < 32; ++i) v[i] = k[i].val(); tree(v, 0, 32); return v[0]; }
static float kahan_plain_merge(const float* x) { std::vector<K> k(32); for (int c = 0; c < N; ++c) k[c % 32].add(x[c]);
  for (int off = 16; off > 0; off /= 2) for (int i = 0; i < off; ++i) { k[i].s += k[i + off].s; k[i].c += k[i + off].c; } return k[0].val(); }
static float neumaier_block(const float* x) { // 256 threads Neumaier, then compensated tree via TwoSum
  std::vector<K> k(256); for (int c = 0; c < N; ++c) k[c % 256].add(x[c]);
  for (int off = 128; off > 0; off /= 2) for (int i = 0; i < off; ++i) k[i].merge_ref(k[i + off]); return k[0].val(); }
int main(int argc, char** argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 200; double big_share = argc > 2 ? atof(argv[2]) : 0.01;
  const char* names[] = {"plain warp (step 1)", "01 block256 float4", "02 warp 8 acc", "plain block 1024", "pairwise float", "kahan ref (warp)", "kahan block256 compensated tree", "04 kahan block128 + atomics", "kahan lanes value() + plain tree", "kahan lanes, s and c merged plainly"};
  const int V = 10; std::vector<std::vector<double>> err(V);
  std::mt19937_64 rng(99); std::mt19937 g(5); std::vector<float> x(N);
  for (int r = 0; r < rows; ++r) {
    long double ex = 0;
    for (int c = 0; c < N; ++c) {
      double u01 = (rng() >> 11) * 0x1p-53, u2 = (rng() >> 11) * 0x1p-53;
      x[c] = u01 < big_share ? float(1e4 * std::pow(10.0, 0.3 * u2)) : float(3e-4 + 1.8e-4 * u2);
      ex += x[c]; }
    float got[V] = {plain_lanes(x.data(), 32), f01(x.data()), f02(x.data()), plain_lanes(x.data(), 1024), pairwise(x.data(), N), kahan_ref(x.data()), neumaier_block(x.data()), f04(x.data(), g), kahan_value_tree(x.data()), kahan_plain_merge(x.data())};
    for (int v = 0; v < V; ++v) err[v].push_back((double)(std::fabs((long double)got[v] - ex) / ex) * 0x1p24);
  }
  printf("%d mixed rows, big share %.3f\n", rows, big_share);
  for (int v = 0; v < V; ++v) { auto e = err[v]; std::sort(e.begin(), e.end()); printf("%-34s min %8.2f  median %8.2f  max %8.2f u\n", names[v], e[0], e[rows / 2], e.back()); }
}
