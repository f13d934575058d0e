#!/usr/bin/env bash
# Evaluates a dvla-ppo run's kept checkpoints again, on more episodes than the run's periodic
# evaluations used: a 120-episode evaluation at 80% success has a standard error of 3.7 points, so
# "the first evaluation at 80%" moves by hundreds of thousands of env steps on a flat learning
# curve. Evaluation is deterministic (fixed evaluation states, mean actions), so N episodes of a
# checkpoint give one fixed figure.
# For each LOGDIR, each LOGDIR/checkpoints/vNNNNNNNN from --from on is evaluated on --episodes
# episodes (`dvla-ppo --eval`) and written to LOGDIR/checkpoint-evaluations.jsonl, one row per
# version in progress.jsonl's shape ({"last_eval": {...}}), so that steps-to-success.sh and
# success-by-steps.sh read it with `--evaluations checkpoint-evaluations.jsonl`. Versions already
# there with as many episodes are kept; rerun it as a run goes on.
#   scripts/evaluate-checkpoints.sh [--episodes N] [--from VERSION] LOGDIR [LOGDIR...]
# DVLA_PPO names the dvla-ppo binary (default: build/apps/dvla-ppo beside this script).
set -euo pipefail

usage() {
  echo "usage: scripts/evaluate-checkpoints.sh [--episodes N] [--from VERSION] LOGDIR [LOGDIR...]" >&2
  exit 2
}
episodes=480
from=0
while [ $# -gt 0 ]; do
  case $1 in
    --episodes) [ $# -ge 2 ] || usage; episodes=$2; shift 2 ;;
    --from) [ $# -ge 2 ] || usage; from=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage
[[ $episodes =~ ^[1-9][0-9]*$ ]] ||
  { echo "evaluate-checkpoints: --episodes '$episodes' is not a positive count" >&2; exit 2; }
[[ $from =~ ^[0-9]+$ ]] ||
  { echo "evaluate-checkpoints: --from '$from' is not a version" >&2; exit 2; }
dvla_ppo=${DVLA_PPO:-$(dirname "$0")/../build/apps/dvla-ppo}
[ -x "$dvla_ppo" ] ||
  { echo "evaluate-checkpoints: no dvla-ppo at '$dvla_ppo' (build it, or set DVLA_PPO)" >&2; exit 1; }
for dir in "$@"; do
  compgen -G "$dir/checkpoints/v[0-9]*" >/dev/null ||
    { echo "evaluate-checkpoints: '$dir/checkpoints' has no checkpoints (vNNNNNNNN)" >&2; exit 1; }
done

source "$(dirname "$0")/lib/need-packages.sh"
need_packages evaluate-checkpoints jq=jq

# One row of checkpoint-evaluations.jsonl from `dvla-ppo --eval --json`'s summary and the
# checkpoint's state.json (the env steps it was saved at).
evaluation_row() {
  local summary=$1 state=$2
  jq -c --slurpfile state "$state" '{last_eval: {version, env_steps: $state[0].env_steps,
      episodes: .eval_episodes, success: .eval_success, success_family: .eval_success_family,
      success_task: .eval_success_task, mean_length: .eval_mean_length,
      mean_return: .eval_mean_return}}' <<<"$summary"
}

# Progress over all the runs' checkpoints: done of total, seconds each, the time left.
total=0
done_count=0
evaluated=0
started=$SECONDS
for dir in "$@"; do
  for checkpoint in "$dir"/checkpoints/v[0-9]*; do
    [ "$((10#${checkpoint##*/v}))" -ge "$from" ] && total=$((total + 1))
  done
done

progress() {
  local elapsed=$((SECONDS - started)) each left
  done_count=$((done_count + 1))
  if [ "$evaluated" -gt 0 ]; then
    each=$((elapsed / evaluated))
    left=$(((total - done_count) * each))
    printf 'evaluate-checkpoints: %d/%d checkpoints, %d s each, about %d:%02d left\n' \
      "$done_count" "$total" "$each" $((left / 60)) $((left % 60))
  else
    printf 'evaluate-checkpoints: %d/%d checkpoints\n' "$done_count" "$total"
  fi
}

evaluate_run() {
  local dir=$1 out=$1/checkpoint-evaluations.jsonl checkpoint version output summary
  touch "$out"
  for checkpoint in "$dir"/checkpoints/v[0-9]*; do
    version=$((10#${checkpoint##*/v}))
    [ "$version" -ge "$from" ] || continue
    if jq -e -n --argjson v "$version" --argjson n "$episodes" \
        'any(inputs; .last_eval.version == $v and .last_eval.episodes >= $n)' "$out" >/dev/null; then
      echo "$dir: v$version already evaluated on $episodes or more episodes"
      progress
      continue
    fi
    output=$("$dvla_ppo" --eval "$checkpoint" --set "eval.episodes=$episodes" --json 2>&1) || {
      echo "evaluate-checkpoints: dvla-ppo --eval $checkpoint failed:" >&2
      echo "$output" | tail -5 >&2
      exit 1
    }
    summary=$(tail -n 1 <<<"$output")
    # The file stays one row per version, in version order; written whole, then renamed.
    { jq -c --argjson v "$version" 'select(.last_eval.version != $v)' "$out"
      evaluation_row "$summary" "$checkpoint/state.json"; } |
      jq -s -c 'sort_by(.last_eval.version) | .[]' >"$out.tmp"
    mv "$out.tmp" "$out"
    jq -r --arg dir "$dir" --argjson v "$version" 'select(.last_eval.version == $v) | .last_eval |
        "\($dir): v\(.version) at \(.env_steps) env steps: success \(.success) over \(.episodes) episodes"' \
      "$out"
    evaluated=$((evaluated + 1))
    progress
  done
}

for dir in "$@"; do evaluate_run "$dir"; done
