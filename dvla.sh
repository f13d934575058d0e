#!/usr/bin/env bash
# dvla's two entry points for a fresh Debian 12 machine (run as root the first time, so the
# packages can be installed):
#   ./dvla.sh run [dvla-ppo flags]   build, then train and evaluate on the embedded default task
#   ./dvla.sh test [ctest flags]     build everything, then run every test and fuzz target
set -euo pipefail
cd "$(dirname "$0")"

usage() {
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

[ $# -ge 1 ] || usage
command=$1
shift
case "$command" in
  run | test) ;;
  *) usage ;;
esac

scripts/install-deps.sh "$command"
jobs=$(nproc)
mkdir -p build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > build/configure.log 2>&1 ||
  { cat build/configure.log >&2; exit 1; }
if [ "$command" = run ]; then
  cmake --build build -j "$jobs" --target dvla-ppo
  exec build/apps/dvla-ppo "$@"
fi
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure "$@")
[ $# -eq 0 ] || exit 0  # ctest flags choose among the tests above: no fuzzing then
# The libFuzzer targets (fuzz/): a clang build of their own, each run for a fixed number of
# executions from its seed corpus.
mkdir -p build-fuzz
cmake -S . -B build-fuzz -DDVLA_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ > build-fuzz/configure.log 2>&1 ||
  { cat build-fuzz/configure.log >&2; exit 1; }
cmake --build build-fuzz -j "$jobs" --target fuzz_targets
cd build-fuzz
exec ctest --output-on-failure
