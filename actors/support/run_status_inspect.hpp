#pragma once
// How CAF serializes and prints a RunStatus.
#include <caf/meta/type_name.hpp>

#include <dvla/runtime/run/run_status.hpp>

namespace dvla::msg {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LearnerStats& x) {
  return f(caf::meta::type_name("dvla::LearnerStats"), x.samples, x.policy_loss, x.value_loss,
           x.entropy, x.approx_kl, x.clip_fraction, x.reference_kl, x.learning_rate,
           x.importance_weight_max, x.importance_weight_ess);
}

}  // namespace dvla::msg

namespace dvla {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, EvaluationSummary& x) {
  return f(caf::meta::type_name("dvla::EvaluationSummary"), x.version, x.env_steps,
           x.wall_seconds, x.episodes, x.success_rate, x.mean_return, x.mean_length,
           x.success_per_family);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ControlSummary& x) {
  return f(caf::meta::type_name("dvla::ControlSummary"), x.rounds, x.last_us, x.mean_us, x.max_us);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, PoolSummary& x) {
  return f(caf::meta::type_name("dvla::PoolSummary"), x.name, x.budget, x.reserved, x.peak_reserved,
           x.in_use, x.peak_in_use, x.largest_free_block, x.failed_requests);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, GroupStatus& x) {
  return f(caf::meta::type_name("dvla::GroupStatus"), x.name, x.env_steps, x.episodes,
           x.mean_return, x.success_rate);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, NodeStatus& x) {
  return f(caf::meta::type_name("dvla::NodeStatus"), x.id, x.name, x.host, x.state, x.cores, x.gpus,
           x.samplers, x.group, x.envs, x.replicas, x.env_steps, x.steps_per_second, x.segments,
           x.segment_bytes, x.policy_lag_mean, x.weights_version, x.weights_from, x.weight_updates,
           x.weight_bytes, x.control_rtt_us, x.start_version, x.first_segment_version,
           x.lost_reason, x.refused);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ThreadPlacementRecord& x) {
  return f(caf::meta::type_name("dvla::ThreadPlacementRecord"), x.actor, x.planned, x.applied,
           x.error);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, MemoryPlacementRecord& x) {
  return f(caf::meta::type_name("dvla::MemoryPlacementRecord"), x.holder, x.planned, x.found,
           x.error);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, PlacementStatus& x) {
  return f(caf::meta::type_name("dvla::PlacementStatus"), x.topology, x.plan, x.threads,
           x.memory);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RunStatus& x) {
  return f(caf::meta::type_name("dvla::RunStatus"), x.env_steps, x.wall_seconds, x.steps_per_second,
           x.episodes, x.mean_return, x.success_rate, x.version, x.policy_lag_mean,
           x.policy_lag_samples, x.samples_trained, x.dropped_stale, x.rejected_messages,
           x.refused_strangers, x.refused_connections, x.learner, x.evaluations, x.last_evaluation,
           x.first_at_target, x.control, x.memory, x.groups, x.segments_dropped, x.nodes,
           x.version_skew, x.placement, x.last_checkpoint, x.checkpoint_failures,
           x.checkpoint_error, x.restarts, x.last_restart, x.finished, x.failure);
}

}  // namespace dvla
