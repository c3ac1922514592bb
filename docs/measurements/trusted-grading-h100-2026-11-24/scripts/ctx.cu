// Run 131: how long a process's CUDA start and end take (context, a stream, one kernel).
#include <cstdio>
#include <chrono>
__global__ void nothing() {}
int main() {
  auto t0 = std::chrono::steady_clock::now();
  cudaFree(0);
  auto t1 = std::chrono::steady_clock::now();
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  nothing<<<1,1,0,s>>>(); cudaStreamSynchronize(s);
  auto t2 = std::chrono::steady_clock::now();
  cudaDeviceReset();
  auto t3 = std::chrono::steady_clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("init %.1f ms, stream+kernel %.1f ms, reset %.1f ms\n", ms(t0, t1), ms(t1, t2), ms(t2, t3));
}
