// Error formatting needs the CUDA runtime library but no GPU.
#include "memlab/cuda_check.cuh"
#include "memlab/grading/catch2.hpp"

#include <string>

TEST_CASE("a failed CUDA call throws with the call, the place and the error's name", "[cuda_check]") {
  try {
    memlab::check_cuda(cudaErrorMemoryAllocation, "cudaMalloc(&d_a, bytes)", "/home/me/labs/vector_add.cu", 42);
    FAIL("check_cuda did not throw");
  } catch (const memlab::CudaError& error) {
    const std::string message = error.what();
    CHECK(message.find("cudaMalloc(&d_a, bytes) failed with cudaErrorMemoryAllocation") == 0);
    CHECK(message.find("at vector_add.cu:42") != std::string::npos);  // the file name, not its path
    CHECK(message.find("/home/me") == std::string::npos);
    CHECK(error.code() == cudaErrorMemoryAllocation);
  }
}

TEST_CASE("a successful CUDA call does not throw", "[cuda_check]") {
  CHECK_NOTHROW(memlab::check_cuda(cudaSuccess, "cudaFree(p)", "f.cu", 1));
}

TEST_CASE("MEMLAB_CHECK names the expression exactly as written", "[cuda_check]") {
  const auto fails = [] { return cudaErrorInvalidValue; };
  try {
    MEMLAB_CHECK(fails());
    FAIL("MEMLAB_CHECK did not throw");
  } catch (const memlab::CudaError& error) {
    CHECK(std::string(error.what()).find("fails() failed with cudaErrorInvalidValue") == 0);
    CHECK(std::string(error.what()).find("cuda_check_test.cpp:") != std::string::npos);
  }
}
