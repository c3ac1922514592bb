# Chooses the GPU architectures to compile for. Included before project(),
# because CMake reads CMAKE_CUDA_ARCHITECTURES when it enables CUDA.
#
#  - A GPU is visible (nvidia-smi answers): build for exactly its compute
#    capability, like nvcc -arch=native. One architecture compiles fastest,
#    which keeps `make labN` quick after an edit.
#  - No GPU (a laptop, CI): build for Turing to Hopper, plus PTX for Hopper
#    that the driver can compile for newer GPUs.
#  - Either way the user has the last word: -DCMAKE_CUDA_ARCHITECTURES=86 or
#    the CUDAARCHS environment variable.
#  - -DMEMLAB_PORTABLE=ON (`make release`, scripts/release.py): machine code
#    for every GPU generation students have, Turing to Blackwell, and no PTX:
#    PTX is the kernels' text, which a release of the references must not hold
#    (red team 10). A machine code runs on its generation's later GPUs (sm_80's
#    on sm_86 and sm_89, sm_120's on sm_121); a GPU newer than the toolkit
#    needs a release built with a newer toolkit.
set(memlab_default_architectures "75-real;80-real;86-real;89-real;90")
set(memlab_release_architectures "75-real;80-real;86-real;89-real;90-real;100-real;120-real")
if(MEMLAB_PORTABLE)
  set(CMAKE_CUDA_ARCHITECTURES "${memlab_release_architectures}" CACHE STRING
      "GPU architectures to build for (MEMLAB_PORTABLE: Turing to Blackwell, machine code only)" FORCE)
  return()
endif()
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

find_program(MEMLAB_NVIDIA_SMI nvidia-smi)
set(memlab_gpu_architectures "")
if(MEMLAB_NVIDIA_SMI)
  execute_process(
    COMMAND "${MEMLAB_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
    OUTPUT_VARIABLE memlab_caps
    RESULT_VARIABLE memlab_smi_status
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(memlab_smi_status EQUAL 0)
    string(REPLACE "\n" ";" memlab_caps "${memlab_caps}")
    foreach(cap IN LISTS memlab_caps)
      string(STRIP "${cap}" cap)
      if(cap MATCHES "^([0-9]+)\\.([0-9]+)$")
        list(APPEND memlab_gpu_architectures "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
      endif()
    endforeach()
    list(REMOVE_DUPLICATES memlab_gpu_architectures)
  endif()
endif()

if(memlab_gpu_architectures)
  set(CMAKE_CUDA_ARCHITECTURES "${memlab_gpu_architectures}" CACHE STRING
      "GPU architectures to build for (found with nvidia-smi)")
  message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (this machine's GPU)")
else()
  set(CMAKE_CUDA_ARCHITECTURES "${memlab_default_architectures}" CACHE STRING
      "GPU architectures to build for (no GPU visible: Turing to Hopper)")
  message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (no GPU visible)")
endif()
