#include <dvla/messages/action_batch.hpp>

#include <dvla/messages/action_batch.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {

ActionFrame build(const ActionBatch& m) {
  const size_t size = codec::tensor_bytes(m.actions) + codec::tensor_bytes(m.log_probs) +
                      codec::tensor_bytes(m.values);
  return ActionFrame(codec::encode<schema::ActionBatch>(size, [&](schema::ActionBatch::Builder b) {
    b.setSamplerId(m.sampler_id);
    b.setSequence(m.sequence);
    b.setPolicyVersion(m.policy_version);
    codec::write_tensor(b.initActions(), m.actions);
    codec::write_tensor(b.initLogProbs(), m.log_probs);
    codec::write_tensor(b.initValues(), m.values);
  }));
}

Expected<ActionBatch> read(const ActionFrame& f) {
  return codec::decode<schema::ActionBatch>(f.bytes(), f.kind, [](schema::ActionBatch::Reader r) {
    ActionBatch m;
    m.sampler_id = r.getSamplerId();
    m.sequence = r.getSequence();
    m.policy_version = r.getPolicyVersion();
    m.actions = codec::read_tensor<float>(r.hasActions(), r.getActions(), "actions", 2);
    m.log_probs = codec::read_tensor<float>(r.hasLogProbs(), r.getLogProbs(), "logProbs", 1);
    m.values = codec::read_tensor<float>(r.hasValues(), r.getValues(), "values", 1);
    const int64_t envs = m.actions.dim(0);
    codec::require_dim(m.log_probs, 0, envs, "logProbs", "the envs of 'actions'");
    codec::require_dim(m.values, 0, envs, "values", "the envs of 'actions'");
    codec::require_finite(m.actions, "actions");
    codec::require_finite(m.log_probs, "logProbs");
    codec::require_finite(m.values, "values");
    return m;
  });
}

}  // namespace dvla::msg
