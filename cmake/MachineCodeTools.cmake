# cuobjdump and nvdisasm, with which the graders read the student's kernels
# (common/memlab/grading/machine_code.hpp): the toolkit's own, or the copy that
# scripts/bootstrap.sh --machine-code installs from PyPI where the toolkit came
# without them; and ptxas, which compiles a build's PTX for a GPU it holds no
# machine code for (nvcc runs it too, so it is always beside nvcc). Sets
# memlab_cuobjdump, memlab_nvdisasm_dir and memlab_ptxas ("" when missing).
set(memlab_cuda_tools "${PROJECT_SOURCE_DIR}/.deps/cuda-tools/nvidia/cu${CUDAToolkit_VERSION_MAJOR}/bin")
find_program(MEMLAB_CUOBJDUMP cuobjdump HINTS "${CUDAToolkit_BIN_DIR}" "${memlab_cuda_tools}"
             DOC "cuobjdump, with which the graders read the student's kernels")
find_program(MEMLAB_NVDISASM nvdisasm HINTS "${CUDAToolkit_BIN_DIR}" "${memlab_cuda_tools}"
             DOC "nvdisasm, which cuobjdump calls to list machine code")
find_program(MEMLAB_PTXAS ptxas HINTS "${CUDAToolkit_BIN_DIR}"
             DOC "ptxas, with which the graders compile a build's PTX for the GPU to read its machine code")
set(memlab_ptxas "${MEMLAB_PTXAS}")
if(NOT MEMLAB_PTXAS)
  set(memlab_ptxas "")
endif()
if(MEMLAB_CUOBJDUMP AND MEMLAB_NVDISASM)
  set(memlab_cuobjdump "${MEMLAB_CUOBJDUMP}")
  get_filename_component(memlab_nvdisasm_dir "${MEMLAB_NVDISASM}" DIRECTORY)
else()
  message(WARNING "cuobjdump or nvdisasm was not found beside nvcc: the labs' graders will not check what "
    "the student's machine code shows (and `make grade` will not start). "
    "scripts/bootstrap.sh --machine-code installs them.")
  set(memlab_cuobjdump "")
  set(memlab_nvdisasm_dir "")
endif()
