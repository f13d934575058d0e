#pragma once
// Who a peer of the cluster is, from its certificate (docs/multi-node.md, "Identity and roles").
//
// TLS (CAF's openssl module) only tells that a peer holds some certificate of the cluster's CA;
// it does not say which, and CAF gives no handle on the connection's certificate. So each side
// also proves itself in the join: it sends its certificate and its signature, made with the key
// TLS used, over a statement that names a fresh nonce of the other side. The verifier checks the
// certificate against the CA, reads the name and role written in it, and checks the signature.
//
// scripts/cluster-certs.sh writes the role and name as a subjectAltName URI:
//   dvla://coordinator/coordinator   the certificate named `coordinator`
//   dvla://node/NAME                 every other name
// No OpenSSL in this header.
#include <memory>
#include <string>
#include <string_view>

#include <dvla/core/expected.hpp>

namespace dvla {

enum class PeerRole { coordinator, node };

std::string_view role_name(PeerRole role);

struct PeerIdentity {
  std::string name;
  PeerRole role = PeerRole::node;
};

// "node 'a'", "the coordinator 'coordinator'".
std::string describe(const PeerIdentity& identity);

// A certificate (PEM) and a signature made with its key: what a peer sends to show who it is.
struct IdentityProof {
  std::string certificate;
  std::string signature;  // raw bytes
};

// Bounds on a proof's parts, checked before either is parsed.
inline constexpr size_t max_certificate_bytes = 16 * 1024;
inline constexpr size_t max_signature_bytes = 1024;
inline constexpr size_t nonce_bytes = 32;

// 32 random bytes from OpenSSL's generator, as hex.
std::string fresh_nonce();

// What a node signs to join: the coordinator's nonce and the name it joins under.
std::string join_statement(const std::string& coordinator_nonce, const std::string& name);
// What the coordinator signs to show itself to a node: the node's nonce.
std::string coordinator_statement(const std::string& node_nonce);

// This process's certificate and key (cluster.tls.certificate and cluster.tls.key).
class IdentityKey {
 public:
  // The error names the file that could not be read or parsed, a key that is not the
  // certificate's, or a certificate without a dvla role (made otherwise than by cluster-certs.sh).
  static Expected<IdentityKey> load(const std::string& certificate_path,
                                    const std::string& key_path);

  const PeerIdentity& identity() const { return identity_; }
  // The certificate and its key's signature over `statement`.
  Expected<IdentityProof> prove(std::string_view statement) const;

 private:
  struct Key;
  IdentityKey(std::shared_ptr<const Key> key, std::string certificate, PeerIdentity identity);

  std::shared_ptr<const Key> key_;
  std::string certificate_;
  PeerIdentity identity_;
};

// The cluster's CA (cluster.tls.cafile): checks what a peer says it is.
class IdentityCheck {
 public:
  static Expected<IdentityCheck> load(const std::string& cafile);

  // The identity `proof` shows: its certificate issued by the CA and valid now, naming a role,
  // and its signature over `statement` made by that certificate's key. The error says which
  // failed.
  Expected<PeerIdentity> verify(const IdentityProof& proof, std::string_view statement) const;

 private:
  struct Store;
  explicit IdentityCheck(std::shared_ptr<const Store> store) : store_(std::move(store)) {}

  std::shared_ptr<const Store> store_;
};

// Whether `certificate` (PEM) is for `host` as dialled: an IP address among its IP SANs, a name
// among its DNS SANs. The error lists the names and addresses it is for.
Status check_certificate_host(const std::string& certificate, const std::string& host);

}  // namespace dvla
