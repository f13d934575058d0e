#include <dvla/core/checksum.hpp>

#include <xxhash.h>

namespace dvla {

uint64_t checksum64(const void* data, size_t size) noexcept { return XXH3_64bits(data, size); }

}  // namespace dvla
