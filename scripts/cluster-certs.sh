#!/usr/bin/env bash
# Makes a certificate authority and one certificate per cluster process, for mutual TLS between a
# dvla coordinator and its nodes (docs/multi-node.md):
#   scripts/cluster-certs.sh DIR [NAME...]     (default names: coordinator node-1 node-2 node-3 node-4)
# writes DIR/ca.pem (give it to every process as cluster.tls.cafile; keep DIR/ca.key private) and
# DIR/NAME.pem + DIR/NAME.key for each NAME (cluster.tls.certificate and cluster.tls.key). Running
# it again keeps the CA and adds the names it lacks. Needs the openssl command (Debian: openssl).
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = --help ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
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
for name in "${names[@]}"; do
  [ -f "$dir/$name.pem" ] && continue
  openssl req -newkey rsa:2048 -nodes -keyout "$dir/$name.key" -out "$dir/$name.csr" \
    -subj "/CN=$name" 2> /dev/null
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -out "$dir/$name.pem" -days "$days" 2> /dev/null
  rm -f "$dir/$name.csr"
  echo "cluster-certs.sh: made $dir/$name.pem and $dir/$name.key"
done
chmod 644 "$dir"/*.pem
