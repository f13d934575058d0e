#!/usr/bin/env bash
# Run on a Debian 12 machine with apt (not on the GPU machine, which has no network): downloads
# the Debian packages dvla builds with that the GPU machine's CUDA image lacks, into .debs/ at the
# repository root (about 30 MB), for device-check.sh to unpack there into a prefix. Nothing is
# installed.
#
# The list is derived, not written down: install-deps.sh's packages (scripts/lib/packages.sh) but
# those the image has of its own (dvla_gpu_image_has), with every package they depend on,
# recursively, but for what the image's toolchain and Mesa pull in and Debian's essential
# packages. `--list` prints it; `--check` checks the derivation (a test runs it): every package of
# the build list is fetched or named as the image's, and every name the image is said to have is
# one of the build list's.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/packages.sh

# Each package `$@` depends on, recursively, with themselves (names only, sorted).
closure() {
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$@" | grep -v '^[ <]' | sort -u
}
essential() {
  dpkg-query -W -f='${Package} ${Essential}\n' 2>/dev/null | awk '$2 == "yes" {print $1}' | sort -u
}
fetched() {
  local wanted=() p
  for p in "${dvla_packages[@]}"; do
    [[ " ${dvla_gpu_image_has[*]} " == *" $p "* ]] || wanted+=("$p")
  done
  comm -23 <(closure "${wanted[@]}") \
    <(sort -u <(closure build-essential libegl-mesa0 libgl1-mesa-dri libglx-mesa0) <(essential))
}

case "${1:-}" in
  --list)
    fetched
    exit 0
    ;;
  --check)
    list=$(fetched)
    bad=0
    for p in "${dvla_packages[@]}"; do
      in_list=0 in_image=0
      grep -qx "$p" <<< "$list" && in_list=1
      [[ " ${dvla_gpu_image_has[*]} " == *" $p "* ]] && in_image=1
      if [ $((in_list + in_image)) -ne 1 ]; then
        echo "fetch-debs: $p is $([ $in_list -eq 1 ] && echo "both fetched and the image's" ||
          echo "neither fetched nor the image's")" >&2
        bad=1
      fi
    done
    for p in "${dvla_gpu_image_has[@]}"; do
      [[ " ${dvla_packages[*]} " == *" $p "* ]] ||
        { echo "fetch-debs: the image is said to have $p, which dvla does not use" >&2; bad=1; }
    done
    [ $bad -eq 0 ] && echo "fetch-debs: $(wc -l <<< "$list") packages fetched, covering the" \
      "${#dvla_packages[@]} of install-deps.sh but the ${#dvla_gpu_image_has[@]} the image has"
    exit $bad
    ;;
  "") ;;
  *)
    echo "usage: scripts/gpu/fetch-debs.sh [--list | --check]" >&2
    exit 2
    ;;
esac

grep -qx '/.debs/' .git/info/exclude 2>/dev/null || echo '/.debs/' >> .git/info/exclude
mkdir -p .debs
mapfile -t packages < <(fetched)
(cd .debs && apt-get download "${packages[@]}")
du -sh .debs
