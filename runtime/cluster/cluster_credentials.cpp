#include <dvla/runtime/cluster/cluster_credentials.hpp>

namespace dvla {

Expected<std::optional<ClusterCredentials>> load_credentials(const ClusterConfig& cluster,
                                                             PeerRole role) {
  if (!cluster.tls()) return std::optional<ClusterCredentials>();
  auto key = IdentityKey::load(cluster.tls_certificate, cluster.tls_key);
  if (!key) return key.error();
  if (key->identity().role != role)
    return Error("cluster.tls.certificate '" + cluster.tls_certificate + "' is " +
                 describe(key->identity()) + "'s; a " + std::string(role_name(role)) +
                 " needs a certificate of that role (scripts/cluster-certs.sh: the name "
                 "'coordinator' is the coordinator's, every other name a node's)");
  auto check = IdentityCheck::load(cluster.tls_cafile);
  if (!check) return check.error();
  return std::optional<ClusterCredentials>(ClusterCredentials{std::move(*key), std::move(*check)});
}

}  // namespace dvla
