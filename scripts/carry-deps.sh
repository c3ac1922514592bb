#!/usr/bin/env bash
# Copies Catch2 and nlohmann-json (installed here, e.g. by scripts/bootstrap.sh) and bubblewrap's
# bwrap into .deps/, for building and grading on a GPU server with no package
# manager and no network: copy the repository with its .deps/ folder there, and
# the build finds Catch2 and nlohmann-json in it, and `make grade` finds .deps/bin/bwrap.
# Catch2's CMake files locate themselves relative to their own folder, so the
# copy keeps the installed layout (include/, lib/.../cmake/Catch2, libraries).
set -euo pipefail
cd "$(dirname "$0")/.."

config=""
for dir in /usr/lib/cmake/Catch2 /usr/lib/*/cmake/Catch2 /usr/local/lib/cmake/Catch2 \
           /usr/local/lib/*/cmake/Catch2; do
  if [ -f "$dir/Catch2Config.cmake" ]; then config=$dir; break; fi
done
if [ -z "$config" ]; then
  echo "carry-deps: Catch2 is not installed here (scripts/bootstrap.sh installs it)" >&2
  exit 1
fi

prefix=${config%/lib/*}              # /usr or /usr/local
libdir=${config%/cmake/Catch2}       # .../lib or .../lib/<triplet>
# Everything but .deps/cuda-tools (cuobjdump from PyPI, scripts/bootstrap.sh --machine-code) is copied afresh.
mkdir -p .deps
find .deps -mindepth 1 -maxdepth 1 ! -name cuda-tools -exec rm -rf {} +
mkdir -p ".deps/include" ".deps/${libdir#"$prefix"/}/cmake"
cp -r "$prefix/include/catch2" .deps/include/
cp -r "$config" ".deps/${libdir#"$prefix"/}/cmake/"
cp "$libdir"/libCatch2*.a ".deps/${libdir#"$prefix"/}/" 2>/dev/null || true
echo "carry-deps: copied Catch2 from $prefix into .deps/ ($(du -sh .deps | cut -f1))"

# nlohmann-json: header-only, its headers and its CMake package (whose paths are
# relative to where it lies, so it works from .deps/share/cmake).
json_config=""
for dir in /usr/share/cmake/nlohmann_json /usr/lib/cmake/nlohmann_json /usr/local/share/cmake/nlohmann_json; do
  [ -f "$dir/nlohmann_jsonConfig.cmake" ] && json_config=$dir && break
done
if [ -z "$json_config" ]; then
  echo "carry-deps: nlohmann-json is not installed here (scripts/bootstrap.sh installs it)" >&2
  exit 1
fi
json_prefix=${json_config%/share/cmake/nlohmann_json}
json_prefix=${json_prefix%/lib/cmake/nlohmann_json}
mkdir -p .deps/share/cmake
cp -r "$json_prefix/include/nlohmann" .deps/include/
cp -r "$json_config" .deps/share/cmake/
echo "carry-deps: copied nlohmann-json from $json_prefix into .deps/"

# bwrap, the sandbox of `make grade`: the Debian/Ubuntu package's binary alone.
# It needs only libselinux, libcap and libpcre2 at run time, which every
# Debian and Ubuntu system has. Grading does not need it to build, so its
# absence is said and the copy of Catch2 stands.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! command -v apt-get >/dev/null 2>&1; then
  echo "carry-deps: no apt-get here, so bwrap is not carried: install bubblewrap on the GPU server," \
       "or grade there with GRADE_ARGS=--no-sandbox" >&2
elif (cd "$work" && apt-get download bubblewrap >/dev/null 2>&1) &&
     dpkg -x "$work"/bubblewrap_*.deb "$work/root" && [ -x "$work/root/usr/bin/bwrap" ]; then
  mkdir -p .deps/bin
  cp "$work/root/usr/bin/bwrap" .deps/bin/bwrap
  echo "carry-deps: copied bwrap ($(basename "$work"/bubblewrap_*.deb .deb)) into .deps/bin/"
else
  echo "carry-deps: apt-get could not download bubblewrap (run apt-get update?), so bwrap is not carried:" \
       "install bubblewrap on the GPU server, or grade there with GRADE_ARGS=--no-sandbox" >&2
fi
