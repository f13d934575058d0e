# Sourced by scripts that read a dvla-ppo run's evaluations (needs jq).
# run_evaluations FILE [FAMILY]: the evaluations in FILE (a run's progress.jsonl, or
# evaluate-checkpoints.sh's checkpoint-evaluations.jsonl), one tab-separated row per evaluated
# version, in order: version, env steps of that version (older logs: when it showed), success
# (overall, or of FAMILY; "none" where the evaluation has no such family), episodes.
run_evaluations() {
  jq -r --arg family "${2:-}" 'select(.last_eval != null) | .last_eval as $e |
      [$e.version, ($e.env_steps // .env_steps),
       (if $family == "" then $e.success else ($e.success_family[$family] // "none") end),
       ($e.episodes // 1)] | @tsv' \
    "$1" | awk -F'\t' '!seen[$1]++'
}
