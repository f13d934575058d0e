#!/usr/bin/env bash
# Makes a certificate authority and one certificate per cluster process, for mutual TLS between a
# dvla coordinator and its nodes (docs/multi-node.md):
#   scripts/cluster-certs.sh DIR [NAME...]     (default names: coordinator node-1 node-2 node-3 node-4)
# writes DIR/ca.pem (give it to every process as cluster.tls.cafile; keep DIR/ca.key private) and
# DIR/NAME.pem + DIR/NAME.key for each NAME (cluster.tls.certificate and cluster.tls.key). Running
# it again keeps the CA and adds the names it lacks. Needs the openssl command (Debian: openssl).
# Each certificate carries its role and name as a subjectAltName URI: dvla://coordinator/coordinator
# for the name `coordinator`, dvla://node/NAME for every other name. The coordinator's is also for
# localhost, 127.0.0.1, ::1, this machine's host names and addresses, and each of
# DVLA_CERT_HOSTS (names or addresses, space- or comma-separated): nodes check the address they
# dial against these (or set cluster.tls.check_address=false).
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = --help ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
command -v openssl > /dev/null || { echo "cluster-certs.sh: needs the openssl command (apt-get install openssl)" >&2; exit 1; }
dir=$1
shift
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(coordinator node-1 node-2 node-3 node-4)
mkdir -p "$dir"
umask 077  # private keys readable by their owner only
days=${DVLA_CERT_DAYS:-365}

if [ ! -f "$dir/ca.pem" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/ca.key" -out "$dir/ca.pem" -days "$days" \
    -subj "/CN=dvla-cluster-ca" 2> /dev/null
  echo "cluster-certs.sh: made the CA $dir/ca.pem"
fi

# The subjectAltName of the coordinator's certificate: its role and every host it may be dialled
# by.
coordinator_names() {
  local hosts=(localhost 127.0.0.1 ::1 "$(hostname)" "$(hostname -f 2> /dev/null || true)")
  read -r -a found <<< "$(hostname -I 2> /dev/null || true)"
  hosts+=("${found[@]}")
  read -r -a extra <<< "$(printf %s "${DVLA_CERT_HOSTS:-}" | tr , " ")"
  hosts+=("${extra[@]}")
  local san="URI:dvla://coordinator/coordinator" seen=" "
  for h in "${hosts[@]}"; do
    [ -n "$h" ] && [[ $seen != *" $h "* ]] || continue
    seen+="$h "
    if [[ $h =~ ^[0-9.]+$ || $h == *:* ]]; then san+=",IP:$h"; else san+=",DNS:$h"; fi
  done
  echo "$san"
}

for name in "${names[@]}"; do
  if ! [[ $name =~ ^[A-Za-z0-9._-]{1,128}$ ]]; then
    echo "cluster-certs.sh: '$name' is no name: use 1 to 128 of A-Z a-z 0-9 . _ -" >&2
    exit 2
  fi
  # Kept unless it predates roles (no dvla URI): then it is made again.
  if [ -f "$dir/$name.pem" ] &&
    openssl x509 -in "$dir/$name.pem" -noout -ext subjectAltName 2> /dev/null | grep -q 'dvla://'; then
    continue
  fi
  if [ "$name" = coordinator ]; then san=$(coordinator_names); else san="URI:dvla://node/$name"; fi
  openssl req -newkey rsa:2048 -nodes -keyout "$dir/$name.key" -out "$dir/$name.csr" \
    -subj "/CN=$name" 2> /dev/null
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -out "$dir/$name.pem" -days "$days" \
    -extfile <(printf 'subjectAltName=%s\n' "$san") 2> /dev/null
  rm -f "$dir/$name.csr"
  echo "cluster-certs.sh: made $dir/$name.pem and $dir/$name.key"
done
chmod 644 "$dir"/*.pem
