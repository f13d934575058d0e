#pragma once
// checksum64: a fast 64-bit checksum of a byte range (XXH3 from the xxHash library), for verifying
// that bytes which crossed a network or a disk arrived whole. Not a cryptographic hash: it finds
// damage, not tampering (mutual TLS guards against peers that tamper).
#include <cstddef>
#include <cstdint>

namespace dvla {

uint64_t checksum64(const void* data, size_t size) noexcept;

}  // namespace dvla
