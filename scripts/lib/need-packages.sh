# Sourced by scripts that need command-line tools: need_packages SCRIPT COMMAND=PACKAGE...
# installs the Debian packages of the commands that are missing (as root), or says which it needs.
need_packages() {
  local script=$1 pair need=()
  shift
  for pair in "$@"; do
    command -v "${pair%%=*}" >/dev/null || need+=("${pair#*=}")
  done
  [ ${#need[@]} -gt 0 ] || return 0
  [ "$(id -u)" -eq 0 ] || { echo "$script: needs the Debian packages ${need[*]} (as root)" >&2; exit 1; }
  echo "$script: installing Debian packages: ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >&2 ||
    { apt-get update -q >&2 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >&2; }
}
