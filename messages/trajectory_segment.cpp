#include "messages/trajectory_segment.hpp"

#include <algorithm>

#include "messages/codec.hpp"
#include "messages/trajectory_segment.capnp.h"

namespace dvla::msg {

uint64_t TrajectorySegment::oldest_version() const {
  return policy_versions.empty()
             ? 0
             : *std::min_element(policy_versions.begin(), policy_versions.end());
}

SegmentFrame build(const TrajectorySegment& m) {
  using codec::tensor_bytes;
  const size_t size = tensor_bytes(m.observations) + tensor_bytes(m.actions) +
                      6 * tensor_bytes(m.rewards) + tensor_bytes(m.final_observations) +
                      8 * m.policy_versions.size() + 4 * m.final_indices.size();
  return SegmentFrame(
      codec::encode<schema::TrajectorySegment>(size, [&](schema::TrajectorySegment::Builder b) {
        b.setSamplerId(m.sampler_id);
        b.setSequence(m.sequence);
        codec::write_tensor(b.initObservations(), m.observations);
        codec::write_tensor(b.initActions(), m.actions);
        codec::write_tensor(b.initRewards(), m.rewards);
        codec::write_tensor(b.initTerminated(), m.terminated);
        codec::write_tensor(b.initTruncated(), m.truncated);
        codec::write_tensor(b.initLogProbs(), m.log_probs);
        codec::write_tensor(b.initValues(), m.values);
        codec::write_tensor(b.initBootstrapValues(), m.bootstrap_values);
        auto versions = b.initPolicyVersions(static_cast<unsigned>(m.policy_versions.size()));
        for (unsigned i = 0; i < m.policy_versions.size(); ++i)
          versions.set(i, m.policy_versions[i]);
        if (!m.final_indices.empty()) {
          codec::write_tensor(b.initFinalObservations(), m.final_observations);
          auto idx = b.initFinalIndices(static_cast<unsigned>(m.final_indices.size()));
          for (unsigned i = 0; i < m.final_indices.size(); ++i) idx.set(i, m.final_indices[i]);
        }
      }));
}

namespace {

// The truncated final observations must line up with the truncated steps of the segment.
void read_final_observations(schema::TrajectorySegment::Reader r, TrajectorySegment& m) {
  for (auto i : r.getFinalIndices()) m.final_indices.push_back(i);
  if (m.final_indices.empty()) {
    codec::require(!r.hasFinalObservations(), "field 'finalObservations' without 'finalIndices'");
    return;
  }
  m.final_observations = codec::read_tensor<float>(
      r.hasFinalObservations(), r.getFinalObservations(), "finalObservations", codec::any_rank);
  const auto& obs = m.observations.shape;
  codec::require(m.final_observations.rank() == obs.size() - 1 &&
                     std::equal(obs.begin() + 2, obs.end(), m.final_observations.shape.begin() + 1),
                 "field 'finalObservations' rows do not have the shape of an observation");
  codec::require_dim(m.final_observations, 0, static_cast<int64_t>(m.final_indices.size()),
                     "finalObservations", "the length of 'finalIndices'");
  codec::require_finite(m.final_observations, "finalObservations");
  const auto cells = static_cast<uint64_t>(m.steps() * m.envs());
  for (size_t i = 0; i < m.final_indices.size(); ++i) {
    const uint32_t idx = m.final_indices[i];
    codec::require(idx < cells, "field 'finalIndices' points past the segment");
    codec::require(i == 0 || idx > m.final_indices[i - 1], "field 'finalIndices' is not ascending");
    codec::require(m.truncated.data[idx] != 0,
                   "field 'finalIndices' names a step that is not truncated");
  }
}

}  // namespace

Expected<TrajectorySegment> read(const SegmentFrame& f) {
  return codec::decode<schema::TrajectorySegment>(
      f.bytes(), f.kind, [](schema::TrajectorySegment::Reader r) {
        using codec::read_tensor;
        using codec::require_dim;
        TrajectorySegment m;
        m.sampler_id = r.getSamplerId();
        m.sequence = r.getSequence();
        m.observations = read_tensor<float>(r.hasObservations(), r.getObservations(),
                                            "observations", codec::any_rank);
        codec::require(m.observations.rank() >= 3,
                       "field 'observations' needs rank >= 3: [T, envs, obs...]");
        const int64_t steps = m.steps(), envs = m.envs();
        m.actions = read_tensor<float>(r.hasActions(), r.getActions(), "actions", 3);
        m.rewards = read_tensor<float>(r.hasRewards(), r.getRewards(), "rewards", 2);
        m.terminated = read_tensor<uint8_t>(r.hasTerminated(), r.getTerminated(), "terminated", 2);
        m.truncated = read_tensor<uint8_t>(r.hasTruncated(), r.getTruncated(), "truncated", 2);
        m.log_probs = read_tensor<float>(r.hasLogProbs(), r.getLogProbs(), "logProbs", 2);
        m.values = read_tensor<float>(r.hasValues(), r.getValues(), "values", 2);
        m.bootstrap_values = read_tensor<float>(r.hasBootstrapValues(), r.getBootstrapValues(),
                                                "bootstrapValues", 1);
        for (const auto& [t, name] : {std::pair{&m.actions, "actions"},
                                      {&m.rewards, "rewards"},
                                      {&m.log_probs, "logProbs"},
                                      {&m.values, "values"}}) {
          require_dim(*t, 0, steps, name, "T of 'observations'");
          require_dim(*t, 1, envs, name, "the envs of 'observations'");
        }
        for (const auto& [t, name] :
             {std::pair{&m.terminated, "terminated"}, {&m.truncated, "truncated"}}) {
          require_dim(*t, 0, steps, name, "T of 'observations'");
          require_dim(*t, 1, envs, name, "the envs of 'observations'");
        }
        require_dim(m.bootstrap_values, 0, envs, "bootstrapValues", "the envs of 'observations'");
        for (auto v : r.getPolicyVersions()) m.policy_versions.push_back(v);
        codec::require(static_cast<int64_t>(m.policy_versions.size()) == steps,
                       "field 'policyVersions' does not hold one version per step");
        for (const auto& [t, name] : {std::pair{&m.observations, "observations"},
                                      {&m.actions, "actions"},
                                      {&m.rewards, "rewards"},
                                      {&m.log_probs, "logProbs"},
                                      {&m.values, "values"},
                                      {&m.bootstrap_values, "bootstrapValues"}})
          codec::require_finite(*t, name);
        read_final_observations(r, m);
        return m;
      });
}

}  // namespace dvla::msg
