#!/usr/bin/env bash
# Plots the learning curves of one or more dvla-ppo runs (their --logdir) into one PNG:
#   training mean return and evaluation success (or, without tasks, evaluation return) over env
#   steps, and env steps/s over wall time. Several runs are overlaid (e.g. --mode async vs sync);
#   for a single tabletop run the evaluation panel also shows each task family.
# Reads LOGDIR/progress.jsonl with jq and draws with gnuplot; installs both (Debian packages jq,
# gnuplot-nox) on first use.
# --evaluations FILE takes the evaluation points from LOGDIR/FILE instead (rows in progress.jsonl's
# `last_eval` shape, e.g. checkpoint-evaluations.jsonl from scripts/evaluate-checkpoints.sh).
#   scripts/plot-run.sh [--evaluations FILE] OUT.png LOGDIR [LOGDIR...]
set -euo pipefail

usage() {
  echo "usage: scripts/plot-run.sh [--evaluations FILE] OUT.png LOGDIR [LOGDIR...]" >&2
  exit 2
}
evaluations=progress.jsonl
if [ "${1:-}" = --evaluations ]; then
  [ $# -ge 2 ] || usage
  evaluations=$2
  shift 2
fi
[ $# -ge 2 ] || usage
out=$1
shift
for dir in "$@"; do
  for file in progress.jsonl "$evaluations"; do
    [ -s "$dir/$file" ] || { echo "plot-run: '$dir/$file' is missing or empty" >&2; exit 1; }
  done
done

source "$(dirname "$0")/lib/need-packages.sh"
need_packages plot-run jq=jq gnuplot=gnuplot-nox

data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

# Families of the first run's latest evaluation (tabletop); none for envs without tasks.
families=$(jq -r 'select(.last_eval.success_family != null) | .last_eval.success_family | keys | join(" ")' \
  "$1/$evaluations" | tail -n 1)
family_columns=$(for f in $families; do printf ', (.last_eval.success_family["%s"] // 0)' "$f"; done)

i=0
for dir in "$@"; do
  # A resumed run starts its wall clock again: a blank line there breaks the curve. Until the
  # first episode of a process ends, it shows a mean return of 0 that is not one: NaN, not plotted.
  jq -r '[.env_steps, .train_mean_return, .wall_seconds, .steps_per_second, .episodes] | @tsv' \
    "$dir/progress.jsonl" |
    awk -F'\t' -v OFS='\t' 'NR == 1 || $3 < wall { if (NR > 1) print ""; first = $5 }
      { wall = $3; if ($5 == first && $2 == 0) $2 = "NaN"; print $1, $2, $3, $4 }' > "$data/train_$i.tsv"
  # One row per evaluated version, at the env steps of that version (older logs: when it showed).
  jq -r "select(.last_eval != null) | [(.last_eval.env_steps // .env_steps), .last_eval.success,
      .last_eval.mean_return, .last_eval.version $family_columns] | @tsv" "$dir/$evaluations" |
    awk -F'\t' '!seen[$4]++' > "$data/eval_$i.tsv"
  i=$((i + 1))
done

# "plot" with one curve per run: its KIND_i.tsv, gnuplot's COLUMNS and STYLE, titled by its logdir
# (with SUFFIX).
plot_runs() {
  local kind=$1 columns=$2 style=$3 suffix=${4:-} i=0 dir
  printf "plot "
  for dir in "${runs[@]}"; do
    printf "%s'%s' using %s with %s title '%s%s'" "$([ $i -gt 0 ] && echo ', ')" \
      "$data/${kind}_$i.tsv" "$columns" "$style" "$dir" "$suffix"
    i=$((i + 1))
  done
}

runs=("$@")
{
  echo "set terminal png size 1600,480 font ',10'"
  echo "set output '$out'"
  echo "set termoption noenhanced"  # names such as place_bowl: no subscripts
  echo "set datafile separator '\t'"
  echo "set key bottom right"
  echo "set grid"
  echo "set multiplot layout 1,3"
  echo "set format x '%.1s%c'"
  echo "set xrange [0:*]"
  echo "set xlabel 'env steps'"
  echo "set title 'training: mean return (last 100 episodes)'"
  plot_runs train 1:2 lines
  echo
  if [ -n "$families" ]; then
    echo "set title 'evaluation: success'"
    echo "set yrange [0:1]"
    echo "set key top left"
    # A single run: every family beside the overall rate.
    plot_runs eval 1:2 linespoints "$([ $# -eq 1 ] && echo ' (all)')"
    if [ $# -eq 1 ]; then
      c=5; for f in $families; do
        printf ", '%s' using 1:%d with linespoints title '%s'" "$data/eval_0.tsv" "$c" "$f"
        c=$((c + 1))
      done
    fi
  else
    echo "set title 'evaluation: mean return'"
    plot_runs eval 1:3 linespoints
  fi
  echo
  echo "set autoscale y"
  echo "set key bottom right"
  echo "set xlabel 'wall seconds'"
  echo "set title 'env steps per second (since start)'"
  plot_runs train 3:4 lines
  echo
  echo "unset multiplot"
} > "$data/plot.gp"

gnuplot "$data/plot.gp"
echo "plot-run: wrote $out"
