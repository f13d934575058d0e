#!/usr/bin/env bash
# The prepared GPU check: run from the repository root on a machine with an NVIDIA GPU, the CUDA
# toolkit at /usr/local/cuda, a CUDA build of PyTorch (its LibTorch is what dvla links) and the
# packages of fetch-debs.sh in .debs/ (no network needed). Unpacks the packages into a prefix,
# builds dvla against them, runs the CUDA pool and NCCL tests, CartPole and a short tabletop run
# with the model on the GPU, and `dvla-bench memory` with CUDA pools (and host pools, for
# comparison), and writes every log to $OUT (or ./gpu-check-out).
#
# Prints one line per step, `PASS name` or `FAIL name: reason`, then `VERDICT: PASS` or
# `VERDICT: FAIL (N of M steps failed)`; exits 0 only when every step passed. Without a GPU it
# fails at once (`FAIL nvidia-smi: no NVIDIA GPU`).
# Budget: about 8 minutes on 16 cores; nothing is installed outside /tmp and build-gpu/.
set -uo pipefail
out=${OUT:-$PWD/gpu-check-out}
mkdir -p "$out"
prefix=/tmp/dvla-prefix
steps=0 failed=0

say() { echo "$*" | tee -a "$out/steps.log"; }
pass() { steps=$((steps + 1)); say "PASS $1"; }
fail() { steps=$((steps + 1)) failed=$((failed + 1)); say "FAIL $1: $2"; }
verdict() {
  if [ "$failed" -eq 0 ]; then say "VERDICT: PASS ($steps steps)"; exit 0; fi
  say "VERDICT: FAIL ($failed of $steps steps failed)"
  exit 1
}
# step NAME LOG COMMAND...: runs COMMAND with its output in $out/LOG; passes on exit status 0.
step() {
  local name=$1 log=$2 status
  shift 2
  "$@" > "$out/$log" 2>&1
  status=$?
  if [ "$status" -eq 0 ]; then pass "$name"; return 0; fi
  fail "$name" "exit status $status ($log ends: $(tail -n 1 "$out/$log" | cut -c1-160))"
  return 1
}
# A doctest log that ran at least one case and did not skip its CUDA work for want of a device.
ran_on_gpu() {
  grep -q "test cases: *[1-9]" "$1" && ! grep -q "CUDA pool tests are skipped" "$1"
}

nvidia-smi -L > "$out/nvidia-smi.txt" 2>&1 && grep -q "^GPU " "$out/nvidia-smi.txt" ||
  { fail nvidia-smi "no NVIDIA GPU"; verdict; }
pass "nvidia-smi: $(head -n 1 "$out/nvidia-smi.txt" | cut -c1-80)"

ls .debs/*.deb > /dev/null 2>&1 ||
  { fail packages "no .debs/*.deb (run scripts/gpu/fetch-debs.sh on a machine with apt first)"; verdict; }
unpack() { mkdir -p "$prefix" && for f in .debs/*.deb; do dpkg -x "$f" "$prefix" || return 1; done; }
step "packages: $(ls .debs/*.deb | wc -l) unpacked into $prefix" unpack.log unpack || verdict
export PATH="$prefix/usr/bin:/usr/local/cuda/bin:$PATH"
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"

torch_cmake=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2> "$out/torch.log") ||
  { fail torch "python3 cannot import torch ($(tail -n 1 "$out/torch.log"))"; verdict; }
step configure configure.log cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix/usr;$torch_cmake" \
  -DCMAKE_INCLUDE_PATH="$prefix/usr/include" \
  -DCMAKE_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu" || verdict
grep "dvla:" "$out/configure.log" >> "$out/steps.log"
grep -q "dvla: CUDA .* and NCCL found" "$out/configure.log" ||
  { fail cuda-found "configure found no CUDA toolkit with NCCL (configure.log)"; verdict; }
step build build.log cmake --build build-gpu -j"$(nproc)" \
  --target test_memory test_graph dvla-bench dvla-ppo || verdict

if step "CUDA pools and NCCL broadcast (test_memory)" test_memory.log build-gpu/tests/test_memory -s &&
  ! ran_on_gpu "$out/test_memory.log"; then
  fail "CUDA pools ran" "test_memory skipped its CUDA cases (test_memory.log)"
fi
if step "CartPole, model on the GPU (test_graph)" test_graph_cuda.log \
  build-gpu/tests/test_graph -tc='model.device*' -s &&
  ! grep -q "test cases: *[1-9]" "$out/test_graph_cuda.log"; then
  fail "CartPole ran" "no test case matched model.device* (test_graph_cuda.log)"
fi
step "tabletop lift, model on the GPU, 20k env steps (EGL through the NVIDIA driver)" \
  tabletop_cuda.log timeout 300 build-gpu/apps/dvla-ppo --env tabletop --suite lift \
  --max-env-steps 20000 --set model.device=cuda --set eval.episodes=10 --json
step "dvla-bench memory, CUDA pools" memory_cuda.log \
  build-gpu/apps/dvla-bench memory --set kind=cuda --json
step "dvla-bench memory, host pools" memory_host.log build-gpu/apps/dvla-bench memory --json
verdict
