#pragma once
// checksum64: a fast 64-bit checksum of a byte range (XXH3 from the xxHash library), for verifying
// that bytes which crossed a network or a disk arrived whole. Not a cryptographic hash: it finds
// damage, not tampering (mutual TLS guards against peers that tamper). Checksum64 computes the
// same value over bytes that come in pieces (a file read in blocks).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace dvla {

uint64_t checksum64(const void* data, size_t size) noexcept;

// A checksum as the 16 hex digits that logs, errors and manifests show.
std::string checksum_text(uint64_t checksum);

class Checksum64 {
 public:
  Checksum64();
  ~Checksum64();
  Checksum64(const Checksum64&) = delete;
  Checksum64& operator=(const Checksum64&) = delete;

  void update(const void* data, size_t size) noexcept;
  uint64_t digest() const noexcept;  // checksum64 of everything passed to update so far

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace dvla
