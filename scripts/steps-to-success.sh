#!/usr/bin/env bash
# How many env steps runs took to reach an evaluation success rate: for each dvla-ppo run (its
# --logdir), the first evaluation at or above THRESHOLD, and the first at which the mean of the
# last WINDOW evaluations is (less sensitive to one lucky evaluation). With several runs (e.g.
# --mode async vs sync from the same start) each is compared with the first: env steps ratio.
# Reads LOGDIR/progress.jsonl, or --evaluations FILE under LOGDIR (checkpoint-evaluations.jsonl:
# evaluate-checkpoints.sh's, on more episodes), with jq (installs the Debian package on first use).
#   scripts/steps-to-success.sh [--window N] [--family NAME] [--evaluations FILE] THRESHOLD LOGDIR [LOGDIR...]
set -euo pipefail

usage() {
  echo "usage: scripts/steps-to-success.sh [--window N] [--family NAME] [--evaluations FILE] THRESHOLD LOGDIR [LOGDIR...]" >&2
  exit 2
}
window=3
family=
evaluations=progress.jsonl
while [ $# -gt 0 ]; do
  case $1 in
    --window) [ $# -ge 2 ] || usage; window=$2; shift 2 ;;
    --family) [ $# -ge 2 ] || usage; family=$2; shift 2 ;;
    --evaluations) [ $# -ge 2 ] || usage; evaluations=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
threshold=$1
shift
[[ $window =~ ^[1-9][0-9]*$ ]] || { echo "steps-to-success: --window '$window' is not a positive count" >&2; exit 2; }
[[ $threshold =~ ^(0(\.[0-9]+)?|1(\.0*)?|\.[0-9]+)$ ]] ||
  { echo "steps-to-success: THRESHOLD '$threshold' is not a success rate in [0, 1]" >&2; exit 2; }
for dir in "$@"; do
  [ -s "$dir/$evaluations" ] ||
    { echo "steps-to-success: '$dir/$evaluations' is missing or empty" >&2; exit 1; }
done

source "$(dirname "$0")/lib/need-packages.sh"
source "$(dirname "$0")/lib/run-evaluations.sh"
need_packages steps-to-success jq=jq

printf 'evaluation success%s >= %s; "mean of %d": that evaluation and the %d before it\n' \
  "${family:+ of family $family}" "$threshold" "$window" "$((window - 1))"
printf '%-24s %6s %6s | %-22s | %-22s | %s\n' run evals best "first: version, steps" \
  "mean of $window: version, steps" "steps vs the first run (first, mean)"
first_steps=
for dir in "$@"; do
  rows=$(run_evaluations "$dir/$evaluations" "$family")
  if grep -q $'\tnone\t' <<<"$rows"; then
    echo "steps-to-success: '$dir' has evaluations without family '$family'" >&2
    exit 1
  fi
  result=$(awk -F'\t' -v t="$threshold" -v w="$window" '
    { n++; s[n] = $3; if ($3 > best) best = $3; sum += $3; if (n > w) sum -= s[n - w]
      if (first == "" && $3 >= t) first = "v" $1 " " $2
      if (mean == "" && n >= w && sum / w >= t - 1e-9) mean = "v" $1 " " $2 }
    END { printf "%d\t%.3f\t%s\t%s\n", n, best, (first == "" ? "never" : first),
                 (mean == "" ? "never" : mean) }' <<<"$rows")
  IFS=$'\t' read -r n best first mean <<<"$result"
  steps="${first##* } ${mean##* }"
  [ -n "$first_steps" ] || first_steps=$steps
  ratio=$(awk -v a="$first_steps" -v b="$steps" 'BEGIN {
      split(a, x, " "); split(b, y, " ")
      for (i = 1; i <= 2; i++) out = out (i > 1 ? " " : "") \
        ((x[i] ~ /^[0-9]+$/ && y[i] ~ /^[0-9]+$/ && x[i] > 0) ? sprintf("%.2f", y[i] / x[i]) : "-")
      print out }')
  printf '%-24s %6d %6s | %-22s | %-22s | %s\n' "$dir" "$n" "$best" "$first" "$mean" "$ratio"
done
