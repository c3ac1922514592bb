#!/usr/bin/env bash
# Copies Catch2 (installed here, e.g. by scripts/bootstrap.sh) into .deps/, for
# building on a GPU server with no package manager and no network: copy the
# repository with its .deps/ folder there, and the build finds Catch2 in it.
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
rm -rf .deps
mkdir -p ".deps/include" ".deps/${libdir#"$prefix"/}/cmake"
cp -r "$prefix/include/catch2" .deps/include/
cp -r "$config" ".deps/${libdir#"$prefix"/}/cmake/"
cp "$libdir"/libCatch2*.a ".deps/${libdir#"$prefix"/}/" 2>/dev/null || true
echo "carry-deps: copied Catch2 from $prefix into .deps/ ($(du -sh .deps | cut -f1))"
