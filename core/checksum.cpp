#include <dvla/core/checksum.hpp>

#include <xxhash.h>

#include <cstdio>
#include <new>

namespace dvla {

uint64_t checksum64(const void* data, size_t size) noexcept { return XXH3_64bits(data, size); }

std::string checksum_text(uint64_t checksum) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(checksum));
  return text;
}

struct Checksum64::State {
  State() : xxh(XXH3_createState()) {
    if (xxh == nullptr) throw std::bad_alloc();
    XXH3_64bits_reset(xxh);
  }
  ~State() { XXH3_freeState(xxh); }
  XXH3_state_t* xxh;
};

Checksum64::Checksum64() : state_(std::make_unique<State>()) {}
Checksum64::~Checksum64() = default;

void Checksum64::update(const void* data, size_t size) noexcept {
  XXH3_64bits_update(state_->xxh, data, size);
}

uint64_t Checksum64::digest() const noexcept { return XXH3_64bits_digest(state_->xxh); }

}  // namespace dvla
