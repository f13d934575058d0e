#include <dvla/runtime/cluster/join_challenges.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <dvla/core/hex.hpp>
#include <dvla/runtime/cluster/peer_identity.hpp>

namespace dvla {
namespace {

constexpr size_t time_bytes = 8;
constexpr size_t mac_bytes = nonce_bytes - time_bytes;

std::string big_endian(uint64_t value) {
  std::string out(time_bytes, '\0');
  for (size_t i = 0; i < time_bytes; ++i)
    out[time_bytes - 1 - i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}

uint64_t from_big_endian(const std::string& bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < time_bytes; ++i)
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

}  // namespace

JoinChallenges::JoinChallenges(Clock::duration window) : window_(window), epoch_(Clock::now()) {
  if (RAND_bytes(key_.data(), static_cast<int>(key_.size())) != 1)
    throw Failure("OpenSSL's random generator failed: no key for join challenges");
}

std::string JoinChallenges::mac(uint64_t issued_ms, const std::string& process) const {
  const auto message = big_endian(issued_ms) + process;
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), out,
           &length) == nullptr ||
      length < mac_bytes)
    throw Failure("OpenSSL's HMAC failed: no join challenge");
  return std::string(reinterpret_cast<const char*>(out), mac_bytes);
}

std::string JoinChallenges::issue(const std::string& process, Clock::time_point now) const {
  const auto issued_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now - epoch_).count());
  const auto bytes = big_endian(issued_ms) + mac(issued_ms, process);
  return to_hex(bytes.data(), bytes.size());
}

Status JoinChallenges::check(const std::string& nonce, const std::string& process,
                             Clock::time_point now) const {
  // The length first: a peer's string is decoded only when it is a nonce's size.
  const auto bytes = nonce.size() == 2 * nonce_bytes ? from_hex(nonce) : Error("");
  if (!bytes || bytes->size() != nonce_bytes)
    return Error("its challenge is not " + std::to_string(2 * nonce_bytes) + " hex digits");
  const std::string raw(bytes->begin(), bytes->end());
  const auto issued_ms = from_big_endian(raw);
  const auto expected = mac(issued_ms, process);
  if (CRYPTO_memcmp(expected.data(), raw.data() + time_bytes, mac_bytes) != 0)
    return Error("its challenge was not issued to its process by this coordinator");
  const auto issued = epoch_ + std::chrono::milliseconds(issued_ms);
  if (now < issued || now - issued > window_)
    return Error("its challenge is older than " +
                 std::to_string(std::chrono::duration_cast<std::chrono::seconds>(window_).count()) +
                 " s: ask for a new one");
  return Status::ok();
}

}  // namespace dvla
