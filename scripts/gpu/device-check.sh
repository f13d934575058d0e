#!/usr/bin/env bash
# The prepared GPU check: run from the repository root on a machine with an NVIDIA GPU, the CUDA
# toolkit at /usr/local/cuda, a CUDA build of PyTorch (its LibTorch is what dvla links) and the
# packages of fetch-debs.sh in .debs/ (no network needed). Unpacks the packages into a prefix,
# builds dvla against them, runs the CUDA pool tests, CartPole and a short tabletop run with the
# model on the GPU, and `dvla-bench memory` with CUDA pools (and host pools, for comparison), and
# writes every log to $OUT (or ./gpu-check-out).
# Budget: about 8 minutes on 16 cores; nothing is installed outside /tmp and build-gpu/.
set -uo pipefail
out=${OUT:-$PWD/gpu-check-out}
mkdir -p "$out"
prefix=/tmp/dvla-prefix
step() { echo "== $*" | tee -a "$out/steps.log"; }

step "unpack $(ls .debs/*.deb | wc -l) packages into $prefix"
mkdir -p "$prefix"
for f in .debs/*.deb; do dpkg -x "$f" "$prefix"; done
export PATH="$prefix/usr/bin:/usr/local/cuda/bin:$PATH"
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1

step "configure against $(python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)')"
torch_cmake=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix/usr;$torch_cmake" \
  -DCMAKE_INCLUDE_PATH="$prefix/usr/include" \
  -DCMAKE_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu" > "$out/configure.log" 2>&1 ||
  { step "configure failed (configure.log)"; exit 1; }
grep "dvla:" "$out/configure.log" | tee -a "$out/steps.log"

step "build test_memory, test_graph, dvla-bench and dvla-ppo"
cmake --build build-gpu -j"$(nproc)" --target test_memory test_graph dvla-bench dvla-ppo \
  > "$out/build.log" 2>&1 ||
  { step "build failed (build.log)"; tail -30 "$out/build.log"; exit 1; }

step "CUDA pool tests"
build-gpu/tests/test_memory -s > "$out/test_memory.log" 2>&1
tail -4 "$out/test_memory.log" | tee -a "$out/steps.log"

step "CartPole with the model on the GPU (test_graph)"
build-gpu/tests/test_graph -tc='model.device*' -s > "$out/test_graph_cuda.log" 2>&1
tail -4 "$out/test_graph_cuda.log" | tee -a "$out/steps.log"

step "tabletop lift, model on the GPU, 20k env steps (EGL through the NVIDIA driver)"
timeout 300 build-gpu/apps/dvla-ppo --env tabletop --suite lift --max-env-steps 20000 \
  --set model.device=cuda --set eval.episodes=10 --json > "$out/tabletop_cuda.log" 2>&1
tail -6 "$out/tabletop_cuda.log" | tee -a "$out/steps.log"

step "dvla-bench memory, CUDA pools"
build-gpu/apps/dvla-bench memory --set kind=cuda --json > "$out/memory_cuda.log" 2>&1
tail -9 "$out/memory_cuda.log" | tee -a "$out/steps.log"
step "dvla-bench memory, host pools"
build-gpu/apps/dvla-bench memory --json > "$out/memory_host.log" 2>&1
tail -9 "$out/memory_host.log" | tee -a "$out/steps.log"
