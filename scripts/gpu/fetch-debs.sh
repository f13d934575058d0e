#!/usr/bin/env bash
# Run on a Debian 12 machine with apt (not on the GPU machine, which has no network): downloads
# the Debian packages dvla builds with that a CUDA image lacks, into .debs/ at the repository
# root (about 7 MB), for device-check.sh to unpack there into a prefix. Nothing is installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.debs/' .git/info/exclude 2>/dev/null || echo '/.debs/' >> .git/info/exclude
mkdir -p .debs
packages=(
  libcaf-dev libcaf-core0.17 libcaf-io0.17 libcaf-openssl0.17   # actors
  libcapnp-dev libcapnp-0.9.2 capnproto                          # messages (and the schema compiler)
  libfmt-dev libfmt9 doctest-dev nlohmann-json3-dev              # formatting, tests, JSON
  libhwloc-dev libhwloc15 libpng-dev                             # topology, PNG output
  libmujoco-dev libmujoco2.2.2                                   # the tabletop suite's physics
  libccd2 liblodepng0 libqhull-r8.0 libtinyxml2-9                # MuJoCo's own libraries
  libtcmalloc-minimal4                                           # malloc for LibTorch executables
)
(cd .debs && apt-get download "${packages[@]}")
du -sh .debs
