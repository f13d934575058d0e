#!/usr/bin/env bash
# Installs the dvla build BUILD into a temporary prefix, builds SOURCE/examples out of tree
# against it (find_package(dvla CONFIG REQUIRED), as a user's project would) and runs the
# examples' own tests: each example exits non-zero unless it learned its task.
#   tests/package/test_package.sh BUILD SOURCE
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { echo "== $*"; }
step "cmake --install $build --prefix $work/prefix"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" ||
  { cat "$work/install.log"; exit 1; }

launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
step "configure examples/ against the installed package"
cmake -S "$source/examples" -B "$work/examples" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" "${launcher[@]}"
step "build the examples"
cmake --build "$work/examples" -j "$(nproc)"
step "run the examples"
ctest --test-dir "$work/examples" --output-on-failure
