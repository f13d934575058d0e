#pragma once
// What `dvla-bench replication` and its node processes agree on: the synthetic policy of about
// `params` parameters (CartPole's spaces; actor and critic of two hidden layers of sqrt(params / 2)
// units: its weights are what is measured, not what it computes) and the ways a version reaches the replicas.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include <dvla/envs/cartpole.hpp>
#include <dvla/runtime/policies/actor_critic.hpp>

namespace dvla::apps::replication {

// (a) one copy per replica from the learner (a distributor per replica, all under the learner);
// (b) once per node (one distributor per node under the learner, fanning out to its replicas);
// (c) the relay tree (one distributor per node, under the learner or another node).
enum class Mode { per_replica, per_node, tree };

inline const char* mode_name(Mode m) {
  return m == Mode::per_replica ? "a per replica" : m == Mode::per_node ? "b per node" : "c tree";
}

inline std::shared_ptr<Policy> synthetic_policy(uint64_t params) {
  const auto hidden = static_cast<int64_t>(std::sqrt(static_cast<double>(params) / 2));
  return make_actor_critic(envs::CartPole().spec(), {hidden, hidden}, 1);
}

}  // namespace dvla::apps::replication
