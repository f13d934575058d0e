#pragma once
// How CAF serializes and prints the messages of a multi-node run's join (actors/cluster/).
#include <caf/meta/type_name.hpp>

#include <dvla/actors/interfaces.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>
#include <dvla/runtime/cluster/node_info.hpp>
#include <dvla/runtime/cluster/peer_identity.hpp>
#include <dvla/runtime/cluster/weights_source.hpp>

namespace dvla {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, NodeInfo& x) {
  return f(caf::meta::type_name("dvla::NodeInfo"), x.name, x.host, x.pid, x.cores, x.memory_mib,
           x.topology, x.gpus, x.samplers);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, NodeAssignment& x) {
  return f(caf::meta::type_name("dvla::NodeAssignment"), x.node, x.name, x.config_text,
           x.first_sampler, x.samplers, x.envs_per_sampler, x.replicas, x.data_port, x.group,
           x.group_name, x.graph_shape);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, IdentityProof& x) {
  return f(caf::meta::type_name("dvla::IdentityProof"), x.certificate, x.signature);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, WeightsSource& x) {
  return f(caf::meta::type_name("dvla::WeightsSource"), x.name, x.host, x.port);
}

}  // namespace dvla

namespace dvla::actors {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, EndpointRef& x) {
  return f(caf::meta::type_name("dvla::EndpointRef"), x.name, x.handle, x.takes_orders, x.node);
}

}  // namespace dvla::actors
