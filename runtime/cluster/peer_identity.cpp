#include <dvla/runtime/cluster/peer_identity.hpp>

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <fmt/core.h>

#include <optional>

#include <dvla/core/hex.hpp>

namespace dvla {
namespace {

// RAII for OpenSSL's objects: each freed by its own function.
template <auto free_function>
struct Free {
  template <class T>
  void operator()(T* p) const {
    free_function(p);
  }
};
using X509Ptr = std::unique_ptr<X509, Free<X509_free>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Free<EVP_PKEY_free>>;
using BioPtr = std::unique_ptr<BIO, Free<BIO_free>>;
using StorePtr = std::unique_ptr<X509_STORE, Free<X509_STORE_free>>;
using StoreContextPtr = std::unique_ptr<X509_STORE_CTX, Free<X509_STORE_CTX_free>>;
using DigestPtr = std::unique_ptr<EVP_MD_CTX, Free<EVP_MD_CTX_free>>;
using NamesPtr = std::unique_ptr<GENERAL_NAMES, Free<GENERAL_NAMES_free>>;

constexpr std::string_view uri_prefix = "dvla://";

// OpenSSL's last error, as text, and its queue emptied (so it does not leak into the next call).
std::string openssl_error() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown error";
  char text[256] = {};
  ERR_error_string_n(e, text, sizeof text);
  return text;
}

Expected<std::string> read_text(const std::string& path, const char* what) {
  BioPtr file(BIO_new_file(path.c_str(), "r"));
  if (!file) return Error(fmt::format("cannot read {} '{}': {}", what, path, openssl_error()));
  std::string text;
  char buffer[4096];
  for (int n; (n = BIO_read(file.get(), buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  return text;
}

X509Ptr parse_certificate(const std::string& pem) {
  BioPtr in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return X509Ptr(in ? PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr) : nullptr);
}

NamesPtr alt_names(X509* certificate) {
  return NamesPtr(static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr)));
}

std::string_view text_of(const ASN1_STRING* s) {
  return {reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
          static_cast<size_t>(ASN1_STRING_length(s))};
}

// The role and name of the certificate's dvla URI, or an error saying what it lacks.
Expected<PeerIdentity> identity_of(X509* certificate) {
  const auto names = alt_names(certificate);
  std::optional<PeerIdentity> found;
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
    if (name->type != GEN_URI) continue;
    const auto uri = text_of(name->d.uniformResourceIdentifier);
    if (uri.substr(0, uri_prefix.size()) != uri_prefix) continue;
    const auto rest = uri.substr(uri_prefix.size());
    const auto slash = rest.find('/');
    const auto role = rest.substr(0, slash);
    PeerIdentity identity;
    identity.name = std::string(slash == std::string_view::npos ? "" : rest.substr(slash + 1));
    if (role == "coordinator")
      identity.role = PeerRole::coordinator;
    else if (role != "node")
      return Error(fmt::format("its dvla URI '{}' names no role (coordinator or node)", uri));
    if (identity.name.empty() || identity.name.size() > 128)
      return Error(fmt::format("its dvla URI '{}' names no name of 1 to 128 characters", uri));
    if (found) return Error("it has more than one dvla URI");
    found = std::move(identity);
  }
  if (!found)
    return Error(
        "it has no dvla role (a subjectAltName URI dvla://ROLE/NAME): make it with "
        "scripts/cluster-certs.sh");
  return *found;
}

// The DNS names and IP addresses a certificate is for, for messages.
std::string hosts_of(X509* certificate) {
  const auto names = alt_names(certificate);
  std::string out;
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
    std::string one;
    if (name->type == GEN_DNS) one = std::string(text_of(name->d.dNSName));
    if (name->type == GEN_IPADD) {
      const auto bytes = text_of(name->d.iPAddress);
      char text[INET6_ADDRSTRLEN] = {};
      if (inet_ntop(bytes.size() == 4 ? AF_INET : AF_INET6, bytes.data(), text, sizeof text))
        one = text;
    }
    if (!one.empty()) out += (out.empty() ? "" : ", ") + one;
  }
  return out.empty() ? "no host at all" : out;
}

}  // namespace

std::string_view role_name(PeerRole role) {
  return role == PeerRole::coordinator ? "coordinator" : "node";
}

std::string describe(const PeerIdentity& identity) {
  return identity.role == PeerRole::coordinator ? "the coordinator '" + identity.name + "'"
                                                : "node '" + identity.name + "'";
}

std::string fresh_nonce() {
  unsigned char bytes[nonce_bytes];
  if (RAND_bytes(bytes, sizeof bytes) != 1)
    throw Failure("OpenSSL's random generator failed: " + openssl_error());
  return to_hex(bytes, sizeof bytes);
}

std::string join_statement(const std::string& coordinator_nonce, const std::string& name) {
  return "dvla join\nnonce " + coordinator_nonce + "\nname " + name;
}

std::string coordinator_statement(const std::string& node_nonce) {
  return "dvla coordinator\nnonce " + node_nonce;
}

struct IdentityKey::Key {
  KeyPtr key;
};

IdentityKey::IdentityKey(std::shared_ptr<const Key> key, std::string certificate,
                         PeerIdentity identity)
    : key_(std::move(key)), certificate_(std::move(certificate)), identity_(std::move(identity)) {}

Expected<IdentityKey> IdentityKey::load(const std::string& certificate_path,
                                        const std::string& key_path) {
  auto pem = read_text(certificate_path, "cluster.tls.certificate");
  if (!pem) return pem.error();
  auto certificate = parse_certificate(*pem);
  if (!certificate)
    return Error(fmt::format("cluster.tls.certificate '{}' holds no PEM certificate: {}",
                             certificate_path, openssl_error()));
  auto identity = identity_of(certificate.get());
  if (!identity)
    return identity.error().within("cluster.tls.certificate '" + certificate_path + "'");
  const auto key_text = read_text(key_path, "cluster.tls.key");
  if (!key_text) return key_text.error();
  BioPtr in(BIO_new_mem_buf(key_text->data(), static_cast<int>(key_text->size())));
  auto key = std::make_shared<Key>();
  key->key.reset(in ? PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key->key)
    return Error(fmt::format("cluster.tls.key '{}' holds no (unencrypted) PEM private key: {}",
                             key_path, openssl_error()));
  if (X509_check_private_key(certificate.get(), key->key.get()) != 1) {
    ERR_clear_error();
    return Error(fmt::format("cluster.tls.key '{}' is not the key of cluster.tls.certificate '{}'",
                             key_path, certificate_path));
  }
  return IdentityKey(std::move(key), std::move(*pem), std::move(*identity));
}

Expected<IdentityProof> IdentityKey::prove(std::string_view statement) const {
  DigestPtr context(EVP_MD_CTX_new());
  size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(statement.data());
  if (!context ||
      EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, key_->key.get()) != 1 ||
      EVP_DigestSign(context.get(), nullptr, &length, data, statement.size()) != 1)
    return Error("cannot sign with cluster.tls.key: " + openssl_error());
  std::string signature(length, '\0');
  if (EVP_DigestSign(context.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     data, statement.size()) != 1)
    return Error("cannot sign with cluster.tls.key: " + openssl_error());
  signature.resize(length);
  return IdentityProof{certificate_, std::move(signature)};
}

struct IdentityCheck::Store {
  StorePtr store;
};

Expected<IdentityCheck> IdentityCheck::load(const std::string& cafile) {
  auto store = std::make_shared<Store>();
  store->store.reset(X509_STORE_new());
  if (!store->store || X509_STORE_load_file(store->store.get(), cafile.c_str()) != 1)
    return Error(fmt::format("cluster.tls.cafile '{}' cannot be read as PEM certificates: {}",
                             cafile, openssl_error()));
  return IdentityCheck(std::move(store));
}

Expected<PeerIdentity> IdentityCheck::verify(const IdentityProof& proof,
                                             std::string_view statement) const {
  if (proof.certificate.empty()) return Error("it sent no certificate");
  if (proof.certificate.size() > max_certificate_bytes)
    return Error(fmt::format("its certificate has {} bytes (at most {})", proof.certificate.size(),
                             max_certificate_bytes));
  if (proof.signature.empty() || proof.signature.size() > max_signature_bytes)
    return Error(fmt::format("its signature has {} bytes (1 to {})", proof.signature.size(),
                             max_signature_bytes));
  auto certificate = parse_certificate(proof.certificate);
  if (!certificate) return Error("its certificate is no PEM certificate: " + openssl_error());
  StoreContextPtr context(X509_STORE_CTX_new());
  if (!context ||
      X509_STORE_CTX_init(context.get(), store_->store.get(), certificate.get(), nullptr) != 1)
    return Error("cannot check its certificate: " + openssl_error());
  if (X509_verify_cert(context.get()) != 1) {
    ERR_clear_error();
    return Error(
        fmt::format("its certificate is not one of the cluster's CA: {}",
                    X509_verify_cert_error_string(X509_STORE_CTX_get_error(context.get()))));
  }
  auto identity = identity_of(certificate.get());
  if (!identity) return identity.error().within("its certificate");
  DigestPtr digest(EVP_MD_CTX_new());
  if (!digest ||
      EVP_DigestVerifyInit(digest.get(), nullptr, EVP_sha256(), nullptr,
                           X509_get0_pubkey(certificate.get())) != 1 ||
      EVP_DigestVerify(digest.get(), reinterpret_cast<const unsigned char*>(proof.signature.data()),
                       proof.signature.size(),
                       reinterpret_cast<const unsigned char*>(statement.data()),
                       statement.size()) != 1) {
    ERR_clear_error();
    return Error(fmt::format(
        "its signature is not its certificate's ({}'s) over this join: it does not hold that "
        "certificate's key",
        describe(*identity)));
  }
  return *identity;
}

Status check_certificate_host(const std::string& certificate, const std::string& host) {
  auto parsed = parse_certificate(certificate);
  if (!parsed) return Error("no PEM certificate: " + openssl_error());
  unsigned char address[16];
  const bool is_ip = inet_pton(AF_INET, host.c_str(), address) == 1 ||
                     inet_pton(AF_INET6, host.c_str(), address) == 1;
  const int matched = is_ip ? X509_check_ip_asc(parsed.get(), host.c_str(), 0)
                            : X509_check_host(parsed.get(), host.data(), host.size(), 0, nullptr);
  if (matched == 1) return Status::ok();
  ERR_clear_error();
  return Error(fmt::format("its certificate is for {}, not for {}", hosts_of(parsed.get()), host));
}

}  // namespace dvla
