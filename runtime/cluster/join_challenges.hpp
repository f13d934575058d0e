#pragma once
// The nonces a coordinator gives the processes that ask to join, kept by no one.
//
// A join signs a nonce of the coordinator's (peer_identity.hpp), so a proof is good for one
// coordinator process and one asking process only. Kept in a table, those nonces were memory
// any peer could fill by asking (CAF names the process a message comes from as the peer writes
// it, not the connection or address). So each nonce carries its issue time and a MAC over that
// time and the asking process under a key of this coordinator process: the join brings it back,
// and the coordinator checks that it issued it to that process within the window. Pending joins
// hold nothing, for any peer or address.
#include <array>
#include <chrono>
#include <string>

#include <dvla/core/expected.hpp>

namespace dvla {

class JoinChallenges {
 public:
  using Clock = std::chrono::steady_clock;

  // A fresh random key (OpenSSL's generator; throws dvla::Failure if it fails). A join must come
  // within `window` of its challenge.
  explicit JoinChallenges(Clock::duration window);

  // A nonce for `process` (any stable text naming it), as nonce_bytes bytes of hex.
  std::string issue(const std::string& process, Clock::time_point now) const;
  // Whether `nonce` was issued to `process` within the window before `now`; the error says why
  // not.
  Status check(const std::string& nonce, const std::string& process, Clock::time_point now) const;

  Clock::duration window() const { return window_; }

 private:
  std::string mac(uint64_t issued_ms, const std::string& process) const;

  std::array<unsigned char, 32> key_{};
  Clock::duration window_;
  Clock::time_point epoch_;
};

}  // namespace dvla
