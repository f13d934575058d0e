#!/usr/bin/env bash
# Evaluation success as a curve over env steps, averaged in windows, for comparing runs whose single
# evaluations are too noisy to compare one by one (e.g. --mode async vs sync, several seeds each).
# For each RUN: the mean success (weighted by episodes) of its evaluations in each window of
# WINDOW env steps (0..WINDOW, WINDOW..2 WINDOW, ...), with the evaluations counted. A RUN is a
# dvla-ppo --logdir, or several joined by '+' (the seeds of one arm: their evaluations pooled).
# With --rate R: the env steps at which that curve first reaches R (linearly between the windows'
# midpoints) and its ratio to the first RUN's. --evaluations FILE reads LOGDIR/FILE instead of
# LOGDIR/progress.jsonl (checkpoint-evaluations.jsonl: evaluate-checkpoints.sh's).
#   scripts/success-by-steps.sh [--family NAME] [--rate R] [--evaluations FILE] WINDOW RUN [RUN...]
set -euo pipefail

usage() {
  echo "usage: scripts/success-by-steps.sh [--family NAME] [--rate R] [--evaluations FILE] WINDOW RUN [RUN...]" >&2
  exit 2
}
family=
evaluations=progress.jsonl
rate=
while [ $# -gt 0 ]; do
  case $1 in
    --family) [ $# -ge 2 ] || usage; family=$2; shift 2 ;;
    --evaluations) [ $# -ge 2 ] || usage; evaluations=$2; shift 2 ;;
    --rate) [ $# -ge 2 ] || usage; rate=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
window=$1
shift
[[ $window =~ ^[1-9][0-9]*$ ]] ||
  { echo "success-by-steps: WINDOW '$window' is not a positive count of env steps" >&2; exit 2; }
[ -z "$rate" ] || [[ $rate =~ ^(0(\.[0-9]+)?|1(\.0*)?|\.[0-9]+)$ ]] ||
  { echo "success-by-steps: --rate '$rate' is not a success rate in [0, 1]" >&2; exit 2; }
for run in "$@"; do
  IFS=+ read -ra dirs <<<"$run"
  for dir in "${dirs[@]}"; do
    [ -s "$dir/$evaluations" ] ||
      { echo "success-by-steps: '$dir/$evaluations' is missing or empty" >&2; exit 1; }
  done
done

source "$(dirname "$0")/lib/need-packages.sh"
source "$(dirname "$0")/lib/run-evaluations.sh"
need_packages success-by-steps jq=jq

# The evaluations of a RUN (its logdirs' pooled): env steps, success, episodes.
run_rows() {
  local dir rows
  IFS=+ read -ra dirs <<<"$1"
  for dir in "${dirs[@]}"; do
    rows=$(run_evaluations "$dir/$evaluations" "$family")
    if grep -q $'\tnone\t' <<<"$rows"; then
      echo "success-by-steps: '$dir' has evaluations without family '$family'" >&2
      exit 1
    fi
    [ -z "$rows" ] || cut -f2-4 <<<"$rows"
  done
}

declare -A rows
windows=1
for run in "$@"; do
  rows[$run]=$(run_rows "$run")
  last=$(awk -F'\t' -v w="$window" '{ n = int($1 / w) + 1; if (n > m) m = n } END { print m + 0 }' \
    <<<"${rows[$run]}")
  [ "$last" -le "$windows" ] || windows=$last
done

label() { awk -v s="$1" 'BEGIN { if (s >= 1e6 && s % 1e5 == 0) printf "%gM", s / 1e6;
                                 else if (s >= 1e3 && s % 1e3 == 0) printf "%gk", s / 1e3;
                                 else printf "%d", s }'; }
printf 'evaluation success%s, mean per %s env steps (evaluations)' "${family:+ of family $family}" \
  "$(label "$window")"
[ -z "$rate" ] || printf '; steps to %s: where that curve first reaches it' "$rate"
printf '\n%-32s' run
for ((i = 0; i < windows; i++)); do
  printf ' %12s' "$(label $((i * window)))-$(label $(((i + 1) * window)))"
done
[ -z "$rate" ] || printf ' | %-13s %s' "steps to $rate" "vs the first run"
printf '\n'
first=
for run in "$@"; do
  result=$(awk -F'\t' -v w="$window" -v windows="$windows" -v rate="$rate" '
    { i = int($1 / w); sum[i] += $2 * $3; episodes[i] += $3; count[i]++ }
    END {
      reached = ""
      for (i = 0; i < windows; i++) {
        if (!count[i]) { line = line "\t-"; continue }
        mean = sum[i] / episodes[i]; mid = (i + 0.5) * w
        line = line sprintf("\t%.3f(%d)", mean, count[i])
        if (rate != "" && reached == "" && mean >= rate - 1e-9)
          reached = (seen ? prev_mid + (rate - prev) / (mean - prev) * (mid - prev_mid) : mid)
        seen = 1; prev = mean; prev_mid = mid
      }
      printf "%s\t%s\n", (reached == "" ? "never" : sprintf("%d", reached)), substr(line, 2)
    }' <<<"${rows[$run]}")
  reached=${result%%$'\t'*}
  printf '%-32s' "$run"
  IFS=$'\t' read -ra cells <<<"${result#*$'\t'}"
  for cell in "${cells[@]}"; do printf ' %12s' "$cell"; done
  if [ -n "$rate" ]; then
    [ -n "$first" ] || first=$reached
    ratio=$(awk -v a="$first" -v b="$reached" 'BEGIN {
        print (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/ && a > 0) ? sprintf("%.2f", b / a) : "-" }')
    printf ' | %-13s %s' "$reached" "$ratio"
  fi
  printf '\n'
done
