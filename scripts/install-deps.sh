#!/usr/bin/env bash
# Installs the Debian 12 packages dvla builds and runs with, by name; with `test`, also those the
# tests need beyond them. Does nothing when they are all present, so every entry point may call it.
set -euo pipefail

source "$(dirname "$0")/lib/packages.sh"
packages=("${dvla_packages[@]}")
[ "${1:-}" = test ] && packages+=("${dvla_test_packages[@]}")

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
