#!/usr/bin/env bash
# Installs the Debian 12 packages dvla builds and runs with, by name; with `test`, also those the
# tests need beyond them. Does nothing when they are all present, so every entry point may call it.
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config   # toolchain
  libcaf-dev libssl-dev                     # actors (CAF 0.17.6: core, io, openssl)
  openssl                                   # scripts/cluster-certs.sh: TLS certificates
  libcapnp-dev capnproto                    # messages
  libtorch-dev libopenblas0-pthread         # learning; OpenBLAS replaces the slow reference BLAS
  libtcmalloc-minimal4                      # malloc that keeps LibTorch's large tensors mapped
  libfmt-dev doctest-dev nlohmann-json3-dev # formatting, tests, JSON output
  libhwloc-dev                              # node topology
  libxxhash-dev                             # checksums of weights that cross nodes
  libmujoco-dev libpng-dev                  # the tabletop suite's physics; PNG output
  libegl-dev libegl-mesa0 libgl1-mesa-dri   # headless rendering: EGL, Mesa's llvmpipe on CPUs
  libglx-mesa0                              # GL entry points MuJoCo may look up through libGL
  libprotobuf-dev protobuf-compiler         # TensorBoard event files: its Event schemas
  libboost-dev                              # Boost.CRC: CRC-32C of the event files' records
  libgif-dev                                # evaluation videos as animated GIFs
  libtoml11-dev                             # config files in TOML
  libcli11-dev                              # the apps' flags, subcommands and --help
  jq gnuplot-nox                            # scripts/plot-run.sh: learning curves as PNG
)

# fuzz/: clang's libFuzzer, AddressSanitizer and UBSan (dvla.sh test builds the fuzz targets).
[ "${1:-}" = test ] && packages+=(clang libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "dvla: installing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "dvla: these packages are missing and installing them needs root: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
