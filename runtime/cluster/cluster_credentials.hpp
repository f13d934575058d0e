#pragma once
// A cluster process's identity material (cluster.tls.*): its own certificate and key, to prove
// who it is, and the cluster's CA, to check who its peers are (runtime/cluster/peer_identity.hpp).
#include <optional>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/cluster/peer_identity.hpp>
#include <dvla/runtime/config/config.hpp>

namespace dvla {

struct ClusterCredentials {
  IdentityKey key;
  IdentityCheck check;
};

// The credentials of a process that takes `role`, from cluster.tls.*; none without TLS (plain
// TCP: names are not authenticated). The error names the file that failed, or a certificate of
// the other role (a node's certificate on the coordinator, or the coordinator's on a node).
Expected<std::optional<ClusterCredentials>> load_credentials(const ClusterConfig& cluster,
                                                             PeerRole role);

}  // namespace dvla
