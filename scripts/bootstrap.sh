#!/usr/bin/env bash
# Installs what building and testing the labs needs, on Debian or Ubuntu, and
# checks the CUDA toolkit. Installs only what is missing, so it is safe (and
# quick) to run again; the Makefile runs it before configuring.
#
#   scripts/bootstrap.sh            CMake, a C++ compiler, Ninja, Catch2, nlohmann-json (and
#                                   CUPTI's headers where the distribution packaged the toolkit)
#   scripts/bootstrap.sh --plots    ... and matplotlib, for the labs' plots
#   scripts/bootstrap.sh --docs     ... and Doxygen and Graphviz, for `make docs`
#   scripts/bootstrap.sh --grading  ... and bubblewrap, the sandbox of `make grade`
#   scripts/bootstrap.sh --slurm    ... and slurm-wlm and munge, for the test of `make grade SLURM=1`
#                                   on a one-node cluster (scripts/slurm-local-cluster.sh)
#   scripts/bootstrap.sh --machine-code
#                                   ... and cuobjdump and nvdisasm where the CUDA toolkit came
#                                   without them (from PyPI, into .deps/cuda-tools): the graders read
#                                   the student's kernels with them. --grading includes this.
#
# Without apt-get (another distribution, an offline GPU server) it names what
# is missing instead. Catch2, nlohmann-json and bwrap carried in .deps/
# (scripts/carry-deps.sh) count.
set -euo pipefail
cd "$(dirname "$0")/.."

want_plots=no want_docs=no want_grading=no want_slurm=no want_machine_code=no
for arg in "$@"; do
  case "$arg" in
    --plots) want_plots=yes ;;
    --docs) want_docs=yes ;;
    --grading) want_grading=yes want_machine_code=yes ;;
    --machine-code) want_machine_code=yes ;;
    --slurm) want_slurm=yes ;;
    *) echo "bootstrap: unknown option $arg (use --plots, --docs, --grading, --slurm, --machine-code)" >&2; exit 2 ;;
  esac
done

say() { printf 'bootstrap: %s\n' "$*"; }

# The CUDA toolkit is not a distribution package everywhere: check, never install.
nvcc_bin=$(command -v nvcc 2>/dev/null || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
if [ ! -x "$nvcc_bin" ]; then
  cat >&2 <<'MSG'
bootstrap: the CUDA toolkit (nvcc) was not found.
  Install it from https://developer.nvidia.com/cuda-downloads (version 12 or 13),
  or on Ubuntu: sudo apt install nvidia-cuda-toolkit
  then put nvcc on your PATH (it is usually in /usr/local/cuda/bin), or set CUDA_HOME
  to the toolkit's folder, and run make again.
MSG
  exit 1
fi

have_catch2() {
  [ -d .deps/lib/cmake/Catch2 ] && return 0
  local dir
  for dir in /usr/lib/cmake/Catch2 /usr/lib/*/cmake/Catch2 /usr/local/lib/cmake/Catch2 \
             /usr/local/lib/*/cmake/Catch2 /usr/share/Catch2/cmake; do
    [ -f "$dir/Catch2Config.cmake" ] && return 0
  done
  return 1
}
have_nlohmann_json() {
  [ -d .deps/share/cmake/nlohmann_json ] && return 0
  local dir
  for dir in /usr/share/cmake/nlohmann_json /usr/lib/cmake/nlohmann_json /usr/lib/*/cmake/nlohmann_json \
             /usr/local/share/cmake/nlohmann_json /usr/local/lib/cmake/nlohmann_json; do
    [ -f "$dir/nlohmann_jsonConfig.cmake" ] && return 0
  done
  return 1
}
have_python_module() {
  local python
  for python in python3 /usr/bin/python3; do
    command -v "$python" >/dev/null 2>&1 && "$python" -c "import $1" >/dev/null 2>&1 && return 0
  done
  return 1
}

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
have_catch2 || missing+=(catch2)
have_nlohmann_json || missing+=(nlohmann-json3-dev)
if [ "$want_plots" = yes ]; then have_python_module matplotlib || missing+=(python3-matplotlib); fi
if [ "$want_docs" = yes ]; then
  command -v doxygen >/dev/null 2>&1 || missing+=(doxygen)
  command -v dot >/dev/null 2>&1 || missing+=(graphviz)
fi
# CUPTI, through which the runners see which kernels a call launches (common/memlab/grading/
# launch_watch.hpp): NVIDIA's toolkit holds it; Debian's and Ubuntu's toolkit packages ship it
# apart. Without it the graders still work, reading the whole build instead.
if [ "$nvcc_bin" = /usr/bin/nvcc ] && [ ! -f /usr/include/cupti.h ]; then missing+=(libcupti-dev); fi
# Grading runs each student's code under bwrap (grader/README.md, "The sandbox").
if [ "$want_grading" = yes ] && ! command -v bwrap >/dev/null 2>&1 && [ ! -x .deps/bin/bwrap ]; then
  missing+=(bubblewrap)
fi
# The grader's Slurm test starts slurmctld, slurmd and munged itself (no systemd needed).
if [ "$want_slurm" = yes ]; then
  { command -v slurmctld || [ -x /usr/sbin/slurmctld ]; } >/dev/null 2>&1 || missing+=(slurm-wlm)
  { command -v munged || [ -x /usr/sbin/munged ]; } >/dev/null 2>&1 || missing+=(munge)
fi

# cuobjdump and nvdisasm come with the CUDA toolkit, but some installs leave
# them out; NVIDIA publishes them on PyPI, where the build looks for them too
# (common/CMakeLists.txt).
have_cuda_tool() {
  [ -x "$(dirname "$nvcc_bin")/$1" ] || command -v "$1" >/dev/null 2>&1 || compgen -G ".deps/cuda-tools/nvidia/cu*/bin/$1" >/dev/null
}
if [ "$want_machine_code" = yes ] && ! { have_cuda_tool cuobjdump && have_cuda_tool nvdisasm; }; then
  cuda_major=$("$nvcc_bin" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
  wanted=("nvidia-cuda-cuobjdump>=$cuda_major,<$((cuda_major + 1))" "nvidia-cuda-nvdisasm>=$cuda_major,<$((cuda_major + 1))")
  say "installing cuobjdump and nvdisasm for CUDA $cuda_major from PyPI into .deps/cuda-tools"
  if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --target .deps/cuda-tools "${wanted[@]}"; then
    say "could not install them: install the CUDA toolkit's cuobjdump and nvdisasm (or pip), and run this again."
    say "Without them the labs' graders skip the checks their machine code shows, and \`make grade\` does not start."
    exit 1
  fi
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  say "missing: ${missing[*]}"
  say "this system has no apt-get: install those with its package manager."
  say "On an offline GPU server, run scripts/carry-deps.sh on a machine that has Catch2 and nlohmann-json, and copy its .deps/ folder here."
  if [[ " ${missing[*]} " == *" bubblewrap "* ]]; then
    say "Without bubblewrap, \`make grade\` runs only with GRADE_ARGS=--no-sandbox."
  fi
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    say "missing: ${missing[*]}; run as root, or install sudo, to install them"
    exit 1
  fi
  sudo=(sudo)
fi
say "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
say "done"
