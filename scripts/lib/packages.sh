# The Debian 12 packages dvla builds and runs with: the one list, sourced by install-deps.sh (which
# installs them) and gpu/fetch-debs.sh (which downloads what the GPU machine lacks of them).
dvla_packages=(
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
dvla_test_packages=(clang libclang-rt-14-dev)

# Of dvla_packages, what the GPU machine has its own of, or does not use there: its toolchain
# (with everything build-essential pulls in: libc, libstdc++), PyTorch's CUDA LibTorch and its
# BLAS, the NVIDIA driver's EGL instead of Mesa's (with what Mesa pulls in), no plots.
dvla_gpu_image_has=(
  build-essential cmake ccache pkg-config
  libtorch-dev libopenblas0-pthread
  libegl-mesa0 libgl1-mesa-dri libglx-mesa0
  jq gnuplot-nox
)
