#!/usr/bin/env bash
# A multi-node dvla run on this machine: a coordinator (dvla-ppo --listen 127.0.0.1:0) and N node
# processes (dvla-node) on 127.0.0.1, each with its log; all of them are stopped at the end.
#   scripts/cluster-local.sh N [dvla-ppo flags]
# The coordinator's output shows here (with per-node progress lines); node logs go to
# $DVLA_CLUSTER_LOGS (default: a temporary directory, named at the end). `--set cluster.*` flags
# go to the nodes too (heartbeats must match). DVLA_NODE_SAMPLERS=K gives each node K samplers.
# With DVLA_CLUSTER_CERTS=DIR (from scripts/cluster-certs.sh DIR coordinator node-1 ...) every
# process uses mutual TLS with its own certificate. DVLA_BIN: where the programs are (build/apps).
set -euo pipefail

if [ $# -lt 1 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
nodes=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${DVLA_BIN:-$root/build/apps}
for program in dvla-ppo dvla-node; do
  [ -x "$bin/$program" ] || { echo "cluster-local.sh: no $bin/$program (build first: cmake --build build)" >&2; exit 1; }
done
logs=${DVLA_CLUSTER_LOGS:-$(mktemp -d /tmp/dvla-cluster.XXXXXX)}
mkdir -p "$logs"

# The cluster.* settings the nodes share with the coordinator.
shared=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[i]}" = --set ] && [[ ${args[i + 1]:-} == cluster.* ]] && [[ ${args[i + 1]} != cluster.tls.* ]]; then
    shared+=(--set "${args[i + 1]}")
  fi
done
tls() { # NAME: the TLS flags of that process, when certificates are given
  [ -n "${DVLA_CLUSTER_CERTS:-}" ] || return 0
  local d=$DVLA_CLUSTER_CERTS
  echo --set cluster.tls.certificate="$d/$1.pem" --set cluster.tls.key="$d/$1.key" --set cluster.tls.cafile="$d/ca.pem"
}

pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  wait 2> /dev/null || true
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# shellcheck disable=SC2046
"$bin/dvla-ppo" --listen 127.0.0.1:0 --nodes "$nodes" $(tls coordinator) "$@" \
  2> >(tee "$logs/coordinator.err" >&2) &
coordinator=$!
pids+=("$coordinator")
port=
for _ in $(seq 1 600); do
  port=$(sed -n 's/^dvla: coordinator port \([0-9]*\)$/\1/p' "$logs/coordinator.err" 2> /dev/null | head -1)
  [ -n "$port" ] && break
  kill -0 "$coordinator" 2> /dev/null || { wait "$coordinator"; exit $?; }
  sleep 0.1
done
[ -n "$port" ] || { echo "cluster-local.sh: the coordinator did not say its port" >&2; exit 1; }

samplers=()
[ -n "${DVLA_NODE_SAMPLERS:-}" ] && samplers=(--samplers "$DVLA_NODE_SAMPLERS")
for i in $(seq 1 "$nodes"); do
  # shellcheck disable=SC2046
  "$bin/dvla-node" --coordinator "127.0.0.1:$port" --name "node-$i" "${samplers[@]}" \
    $(tls "node-$i") "${shared[@]}" > "$logs/node-$i.log" 2>&1 &
  pids+=("$!")
done
status=0
wait "$coordinator" || status=$?
for pid in "${pids[@]:1}"; do wait "$pid" 2> /dev/null || true; done
echo "cluster-local.sh: node logs in $logs" >&2
exit "$status"
