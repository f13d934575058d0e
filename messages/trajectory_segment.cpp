#include <dvla/messages/trajectory_segment.hpp>

#include <algorithm>

#include <dvla/messages/trajectory_segment.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {

uint64_t TrajectorySegment::oldest_version() const {
  return policy_versions.empty()
             ? 0
             : *std::min_element(policy_versions.begin(), policy_versions.end());
}

int64_t TrajectorySegment::valid_steps() const {
  if (valid.shape.empty()) return steps() * envs();
  return std::count_if(valid.data, valid.data + valid.numel(), [](uint8_t v) { return v != 0; });
}

SegmentFrame build(const TrajectorySegment& m) {
  using codec::tensor_bytes;
  const size_t size = codec::observation_bytes(m.observations) + tensor_bytes(m.actions) +
                      8 * tensor_bytes(m.rewards) + codec::observation_bytes(m.final_observations) +
                      codec::observation_bytes(m.bootstrap_observations) +
                      8 * m.policy_versions.size() + 4 * (m.final_indices.size() + m.groups.size());
  return SegmentFrame(
      codec::encode<schema::TrajectorySegment>(size, [&](schema::TrajectorySegment::Builder b) {
        b.setSamplerId(m.sampler_id);
        b.setSequence(m.sequence);
        b.setFirstEnv(m.first_env);
        b.setLast(m.last);
        codec::write_observations(b.initObservations(), m.observations);
        codec::write_tensor(b.initActions(), m.actions);
        codec::write_tensor(b.initRewards(), m.rewards);
        codec::write_tensor(b.initTerminated(), m.terminated);
        codec::write_tensor(b.initTruncated(), m.truncated);
        codec::write_tensor(b.initLogProbs(), m.log_probs);
        codec::write_tensor(b.initValues(), m.values);
        codec::write_tensor(b.initBootstrapValues(), m.bootstrap_values);
        codec::write_tensor(b.initSuccess(), m.success);
        auto versions = b.initPolicyVersions(static_cast<unsigned>(m.policy_versions.size()));
        for (unsigned i = 0; i < m.policy_versions.size(); ++i)
          versions.set(i, m.policy_versions[i]);
        if (!m.final_indices.empty()) {
          codec::write_observations(b.initFinalObservations(), m.final_observations);
          auto idx = b.initFinalIndices(static_cast<unsigned>(m.final_indices.size()));
          for (unsigned i = 0; i < m.final_indices.size(); ++i) idx.set(i, m.final_indices[i]);
        }
        if (m.bootstrap_observations.state.rank())
          codec::write_observations(b.initBootstrapObservations(), m.bootstrap_observations);
        if (!m.valid.shape.empty()) codec::write_tensor(b.initValid(), m.valid);
        if (!m.groups.empty()) {
          auto groups = b.initGroups(static_cast<unsigned>(m.groups.size()));
          for (unsigned i = 0; i < m.groups.size(); ++i) groups.set(i, m.groups[i]);
        }
      }));
}

namespace {

// `rows` (final or bootstrap observations, leading dimension [count]) must be observations of
// the segment's kind: the same state, image and instruction shapes as its steps'.
void require_rows_like_steps(const Observations& rows, const TrajectorySegment& m, int64_t count,
                             const std::string& field, const char* count_name) {
  const auto& o = m.observations;
  auto same_row_shape = [](const auto& row, const auto& step) {
    return row.rank() + 1 == step.rank() &&
           std::equal(step.shape.begin() + 2, step.shape.end(), row.shape.begin() + 1);
  };
  if (!same_row_shape(rows.state, o.state))
    codec::malformed("field '" + field + ".state' rows are not observations");
  if (rows.has_images() != o.has_images() ||
      (rows.has_images() && !same_row_shape(rows.images, o.images)))
    codec::malformed("field '" + field + ".images' rows do not match the segment's images");
  if (rows.has_instructions() != o.has_instructions() ||
      (rows.has_instructions() && !same_row_shape(rows.instructions, o.instructions)))
    codec::malformed("field '" + field + ".instructions' rows do not match the segment's");
  codec::require_dim(rows.state, 0, count, (field + ".state").c_str(), count_name);
}

// The truncated final observations must line up with the truncated steps of the segment.
void read_final_observations(schema::TrajectorySegment::Reader r, TrajectorySegment& m) {
  for (auto i : r.getFinalIndices()) m.final_indices.push_back(i);
  if (m.final_indices.empty()) {
    codec::require(!r.hasFinalObservations(), "field 'finalObservations' without 'finalIndices'");
    return;
  }
  m.final_observations = codec::read_observations(r.hasFinalObservations(),
                                                  r.getFinalObservations(), "finalObservations", 1);
  require_rows_like_steps(m.final_observations, m, static_cast<int64_t>(m.final_indices.size()),
                          "finalObservations", "the length of 'finalIndices'");
  const auto cells = static_cast<uint64_t>(m.steps() * m.envs());
  for (size_t i = 0; i < m.final_indices.size(); ++i) {
    const uint32_t idx = m.final_indices[i];
    codec::require(idx < cells, "field 'finalIndices' points past the segment");
    codec::require(i == 0 || idx > m.final_indices[i - 1], "field 'finalIndices' is not ascending");
    codec::require(m.truncated.data[idx] != 0,
                   "field 'finalIndices' names a step that is not truncated");
  }
}

// One observation per env, when present.
void read_bootstrap_observations(schema::TrajectorySegment::Reader r, TrajectorySegment& m) {
  if (!r.hasBootstrapObservations()) return;
  m.bootstrap_observations =
      codec::read_observations(true, r.getBootstrapObservations(), "bootstrapObservations", 1);
  require_rows_like_steps(m.bootstrap_observations, m, m.envs(), "bootstrapObservations",
                          "the envs of 'observations'");
}

template <class T>
void require_step_shape(const TensorRef<T>& t, int64_t steps, int64_t envs, const char* name) {
  codec::require_dim(t, 0, steps, name, "T of 'observations'");
  codec::require_dim(t, 1, envs, name, "the envs of 'observations'");
}

}  // namespace

Expected<TrajectorySegment> read(const SegmentFrame& f) {
  return codec::decode<schema::TrajectorySegment>(
      f.bytes(), f.kind, [](schema::TrajectorySegment::Reader r) {
        using codec::read_tensor;
        TrajectorySegment m;
        m.sampler_id = r.getSamplerId();
        m.sequence = r.getSequence();
        m.first_env = r.getFirstEnv();
        m.last = r.getLast();
        m.observations =
            codec::read_observations(r.hasObservations(), r.getObservations(), "observations", 2);
        const int64_t steps = m.steps(), envs = m.envs();
        m.actions = read_tensor<float>(r.hasActions(), r.getActions(), "actions", 3);
        m.rewards = read_tensor<float>(r.hasRewards(), r.getRewards(), "rewards", 2);
        m.terminated = read_tensor<uint8_t>(r.hasTerminated(), r.getTerminated(), "terminated", 2);
        m.truncated = read_tensor<uint8_t>(r.hasTruncated(), r.getTruncated(), "truncated", 2);
        m.log_probs = read_tensor<float>(r.hasLogProbs(), r.getLogProbs(), "logProbs", 2);
        m.values = read_tensor<float>(r.hasValues(), r.getValues(), "values", 2);
        m.bootstrap_values = read_tensor<float>(r.hasBootstrapValues(), r.getBootstrapValues(),
                                                "bootstrapValues", 1);
        m.success = read_tensor<uint8_t>(r.hasSuccess(), r.getSuccess(), "success", 2);
        for (const auto& [t, name] : {std::pair{&m.actions, "actions"},
                                      {&m.rewards, "rewards"},
                                      {&m.log_probs, "logProbs"},
                                      {&m.values, "values"}})
          require_step_shape(*t, steps, envs, name);
        for (const auto& [t, name] : {std::pair{&m.terminated, "terminated"},
                                      {&m.truncated, "truncated"},
                                      {&m.success, "success"}})
          require_step_shape(*t, steps, envs, name);
        codec::require_dim(m.bootstrap_values, 0, envs, "bootstrapValues",
                           "the envs of 'observations'");
        for (auto v : r.getPolicyVersions()) m.policy_versions.push_back(v);
        codec::require(static_cast<int64_t>(m.policy_versions.size()) == steps,
                       "field 'policyVersions' does not hold one version per step");
        for (const auto& [t, name] : {std::pair{&m.actions, "actions"},
                                      {&m.rewards, "rewards"},
                                      {&m.log_probs, "logProbs"},
                                      {&m.values, "values"},
                                      {&m.bootstrap_values, "bootstrapValues"}})
          codec::require_finite(*t, name);
        if (r.hasValid()) {
          m.valid = read_tensor<uint8_t>(true, r.getValid(), "valid", 2);
          require_step_shape(m.valid, steps, envs, "valid");
        }
        for (auto g : r.getGroups()) m.groups.push_back(g);
        codec::require(m.groups.empty() || static_cast<int64_t>(m.groups.size()) == envs,
                       "field 'groups' does not hold one group per env");
        read_final_observations(r, m);
        read_bootstrap_observations(r, m);
        return m;
      });
}

}  // namespace dvla::msg
