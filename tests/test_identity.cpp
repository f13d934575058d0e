// Who a cluster peer is (runtime/cluster/peer_identity.hpp): the certificates cluster-certs.sh
// makes carry their role and name, a proof shows them only with the certificate's key and the
// cluster's CA, and a node checks the coordinator's certificate against the address it dials.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <dvla/runtime/cluster/cluster_credentials.hpp>
#include <dvla/runtime/cluster/join_challenges.hpp>
#include <dvla/runtime/cluster/peer_identity.hpp>
#include <dvla/runtime/cluster/refusal_ledger.hpp>

#include "cluster_certs.hpp"

namespace {

namespace fs = std::filesystem;
using namespace dvla;

// A CA with the coordinator's certificate and nodes a and b, another CA with a node 'a', and a
// certificate of the first CA made without cluster-certs.sh (no role), once per test binary.
struct Certificates {
  fs::path dir = fs::temp_directory_path() / ("dvla-identity-" + std::to_string(::getpid()));
  Certificates() {
    fs::remove_all(dir);
    dvla::test::make_cluster_certs((dir / "ca").string(), "coordinator a b",
                                   "DVLA_CERT_HOSTS=10.254.0.7,trainer.example");
    dvla::test::make_cluster_certs((dir / "other").string(), "a");
    const auto ca = (dir / "ca").string();
    const std::chrono::seconds deadline(60);
    REQUIRE(dvla::test::run_command("openssl req -newkey rsa:2048 -nodes -keyout " + ca +
                                        "/plain.key -out " + ca + "/plain.csr -subj /CN=plain",
                                    deadline)
                .status == 0);
    REQUIRE(dvla::test::run_command("openssl x509 -req -in " + ca + "/plain.csr -CA " + ca +
                                        "/ca.pem -CAkey " + ca + "/ca.key -out " + ca +
                                        "/plain.pem",
                                    deadline)
                .status == 0);
  }
  ~Certificates() { fs::remove_all(dir); }
  std::string pem(const std::string& ca, const std::string& name) const {
    return (dir / ca / (name + ".pem")).string();
  }
  std::string key(const std::string& ca, const std::string& name) const {
    return (dir / ca / (name + ".key")).string();
  }
  IdentityKey load(const std::string& ca, const std::string& name) const {
    auto k = IdentityKey::load(pem(ca, name), key(ca, name));
    REQUIRE_MESSAGE(k, k.error().message());
    return *k;
  }
  IdentityCheck check(const std::string& ca) const {
    auto c = IdentityCheck::load((dir / ca / "ca.pem").string());
    REQUIRE_MESSAGE(c, c.error().message());
    return *c;
  }
};

const Certificates& certificates() {
  static const Certificates c;
  return c;
}

TEST_CASE(
    "cluster-certs.sh writes each certificate's role and name; one without a role is refused") {
  const auto& c = certificates();
  const auto coordinator = c.load("ca", "coordinator");
  CHECK(coordinator.identity().role == PeerRole::coordinator);
  CHECK(coordinator.identity().name == "coordinator");
  const auto a = c.load("ca", "a");
  CHECK(a.identity().role == PeerRole::node);
  CHECK(a.identity().name == "a");
  auto plain = IdentityKey::load(c.pem("ca", "plain"), c.key("ca", "plain"));
  REQUIRE_FALSE(plain);
  CHECK(plain.error().message().find("has no dvla role") != std::string::npos);
  auto mismatched = IdentityKey::load(c.pem("ca", "a"), c.key("ca", "b"));
  REQUIRE_FALSE(mismatched);
  CHECK(mismatched.error().message().find("is not the key of cluster.tls.certificate") !=
        std::string::npos);
  auto missing = IdentityKey::load(c.pem("ca", "nobody"), c.key("ca", "a"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().find("cannot read cluster.tls.certificate") != std::string::npos);
}

TEST_CASE(
    "a proof shows its certificate's identity only over its own statement, with its own "
    "key, from the cluster's CA") {
  const auto& c = certificates();
  const auto check = c.check("ca");
  const auto nonce = fresh_nonce();
  const auto statement = join_statement(nonce, "a");
  const auto proof = *c.load("ca", "a").prove(statement);
  auto shown = check.verify(proof, statement);
  REQUIRE_MESSAGE(shown, shown.error().message());
  CHECK(shown->name == "a");
  CHECK(shown->role == PeerRole::node);
  // Another statement (another nonce, another name): the signature does not hold.
  auto replayed = check.verify(proof, join_statement(fresh_nonce(), "a"));
  REQUIRE_FALSE(replayed);
  CHECK(replayed.error().message().find("does not hold that certificate's key") !=
        std::string::npos);
  CHECK_FALSE(check.verify(proof, join_statement(nonce, "b")));
  // a's certificate with b's signature: b cannot pass for a.
  auto forged = proof;
  forged.signature = c.load("ca", "b").prove(statement)->signature;
  REQUIRE_FALSE(check.verify(forged, statement));
  // Another CA's node 'a' is no node of ours.
  auto stranger = check.verify(*c.load("other", "a").prove(statement), statement);
  REQUIRE_FALSE(stranger);
  CHECK(stranger.error().message().find("not one of the cluster's CA") != std::string::npos);
  // Sizes are checked before anything is parsed.
  auto huge = proof;
  huge.certificate.assign(max_certificate_bytes + 1, 'x');
  auto refused = check.verify(huge, statement);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message().find("bytes (at most") != std::string::npos);
  CHECK_FALSE(check.verify(IdentityProof{proof.certificate, ""}, statement));
  CHECK_FALSE(check.verify(IdentityProof{"garbage", proof.signature}, statement));
}

TEST_CASE("credentials must be of the process's role") {
  const auto& c = certificates();
  ClusterConfig cluster;
  CHECK_FALSE(load_credentials(cluster, PeerRole::node)->has_value());  // no TLS: none
  cluster.tls_certificate = c.pem("ca", "a");
  cluster.tls_key = c.key("ca", "a");
  cluster.tls_cafile = (c.dir / "ca" / "ca.pem").string();
  auto node = load_credentials(cluster, PeerRole::node);
  REQUIRE_MESSAGE(node, node.error().message());
  CHECK((*node)->key.identity().name == "a");
  auto as_coordinator = load_credentials(cluster, PeerRole::coordinator);
  REQUIRE_FALSE(as_coordinator);
  CHECK(as_coordinator.error().message().find("is node 'a''s; a coordinator needs") !=
        std::string::npos);
  cluster.tls_cafile = (c.dir / "ca" / "missing.pem").string();
  REQUIRE_FALSE(load_credentials(cluster, PeerRole::node));
}

TEST_CASE("the coordinator's certificate is for loopback, this machine and DVLA_CERT_HOSTS only") {
  const auto& c = certificates();
  const auto proof = *c.load("ca", "coordinator").prove("x");
  for (const auto* host : {"localhost", "127.0.0.1", "::1", "10.254.0.7", "trainer.example"})
    CHECK_MESSAGE(check_certificate_host(proof.certificate, host), host);
  auto elsewhere = check_certificate_host(proof.certificate, "10.254.0.8");
  REQUIRE_FALSE(elsewhere);
  CHECK(elsewhere.error().message().find("localhost, 127.0.0.1") != std::string::npos);
  CHECK(elsewhere.error().message().find("not for 10.254.0.8") != std::string::npos);
  CHECK_FALSE(check_certificate_host(proof.certificate, "evil.example"));
  // A node's certificate is for no host.
  CHECK_FALSE(check_certificate_host(c.load("ca", "a").prove("x")->certificate, "localhost"));
}

}  // namespace

TEST_CASE(
    "join challenges: a nonce is good for the process it was issued to, by the coordinator that "
    "issued it, within its window; forged, altered, other processes' and late ones are refused") {
  using Clock = JoinChallenges::Clock;
  const JoinChallenges challenges(std::chrono::seconds(60));
  const auto t0 = Clock::now();
  const auto nonce = challenges.issue("abc#1", t0);
  CHECK(nonce.size() == 2 * nonce_bytes);
  CHECK(challenges.check(nonce, "abc#1", t0 + std::chrono::seconds(59)));
  CHECK(challenges.issue("abc#1", t0) == nonce);  // nothing random kept: the same inputs, the same
  CHECK(challenges.issue("abc#2", t0) != nonce);
  const auto refused = [&](const std::string& n, const std::string& process, Clock::time_point at) {
    const auto checked = challenges.check(n, process, at);
    return checked ? std::string("TAKEN") : checked.error().message();
  };
  CHECK(refused(nonce, "abc#2", t0) ==
        "its challenge was not issued to its process by this coordinator");
  CHECK(refused(fresh_nonce(), "abc#1", t0) ==
        "its challenge was not issued to its process by this coordinator");
  auto altered = nonce;
  altered.back() = altered.back() == '0' ? '1' : '0';
  CHECK(refused(altered, "abc#1", t0) ==
        "its challenge was not issued to its process by this coordinator");
  auto later = nonce;  // the issue time moved on: the MAC no longer holds
  later[14] = later[14] == '0' ? '1' : '0';
  CHECK(refused(later, "abc#1", t0) ==
        "its challenge was not issued to its process by this coordinator");
  CHECK(refused(nonce, "abc#1", t0 + std::chrono::seconds(61)) ==
        "its challenge is older than 60 s: ask for a new one");
  CHECK(refused("zz", "abc#1", t0) == "its challenge is not 64 hex digits");
  CHECK(refused("", "abc#1", t0) == "its challenge is not 64 hex digits");
  // Another coordinator process (another key) takes none of this one's.
  const JoinChallenges other(std::chrono::seconds(60));
  CHECK_FALSE(other.check(nonce, "abc#1", t0));
}

TEST_CASE(
    "refusal ledger: each peer's refusal of a kind is said once, its process's refusals are "
    "counted, and past the bound it is disconnected, again only after a pause; anonymous ones are "
    "said once and not counted per peer") {
  using Clock = RefusalLedger::Clock;
  using std::chrono::milliseconds;
  RefusalLedger ledger(3, milliseconds(1000), /*max_logged=*/4, /*max_peers=*/2);
  const auto t0 = Clock::now();
  auto v = ledger.refused("n1", "p1", "join", t0);
  CHECK(v.say);
  CHECK(v.refusals == 1);
  CHECK_FALSE(v.disconnect);
  CHECK_FALSE(ledger.refused("n1", "p1", "join", t0).say);  // said once per peer and kind
  v = ledger.refused("n2", "p1", "segment", t0);            // another system of the same process
  CHECK(v.say);
  CHECK(v.refusals == 3);
  CHECK(v.bound_reached);
  CHECK(v.disconnect);
  // While that is under way, and for a second after it, more refusals end nothing.
  v = ledger.refused("n1", "p1", "join", t0);
  CHECK(v.refusals == 4);
  CHECK_FALSE(v.bound_reached);
  CHECK_FALSE(v.disconnect);
  ledger.disconnected("p1", t0 + milliseconds(10));
  CHECK_FALSE(ledger.refused("n1", "p1", "join", t0 + milliseconds(500)).disconnect);
  v = ledger.refused("n1", "p1", "join", t0 + milliseconds(1010));
  CHECK(v.disconnect);  // it came back: disconnected again
  CHECK_FALSE(v.bound_reached);
  CHECK(ledger.refusals_of("p1") == 6);
  // Anonymous: said once, counted by no peer, never disconnected.
  for (int i = 0; i < 5; ++i) {
    v = ledger.refused("", "", "quorum", t0);
    CHECK(v.say == (i == 0));
    CHECK(v.refusals == 0);
    CHECK_FALSE(v.disconnect);
  }
  // The log's last line says so; then new kinds and peers are counted, not said.
  v = ledger.refused("n3", "p2", "join", t0);
  CHECK(v.say);
  CHECK(v.last_said);
  CHECK_FALSE(ledger.refused("n4", "p2", "relay", t0).say);
  CHECK(ledger.refusals_of("p2") == 2);
  // Past max_peers a new process is not counted one by one.
  CHECK(ledger.refused("n5", "p3", "join", t0).refusals == 0);
  CHECK(ledger.refusals_of("p3") == 0);
}
