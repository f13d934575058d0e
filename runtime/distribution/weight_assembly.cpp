#include <dvla/runtime/distribution/weight_assembly.hpp>

#include <cstring>
#include <new>
#include <string>

#include <dvla/core/checksum.hpp>

namespace dvla {
namespace {

std::string name_of(const msg::WeightChunk& c) {
  return "chunk " + std::to_string(c.index) + " of " + std::to_string(c.count) + " of version " +
         std::to_string(c.version);
}


}  // namespace

Error WeightAssembly::discard(const std::string& what) {
  const auto version = version_;
  *this = WeightAssembly();
  return Error("weight transfer" + (version ? " of version " + std::to_string(*version) : "") +
               " discarded: " + what);
}

Expected<WeightAssembly::Progress> WeightAssembly::add(const msg::WeightChunk& chunk) {
  Progress progress;
  // A first chunk starts afresh: the upstream moved on to a newer version (the rest of this one
  // will not come), or a new upstream (the old one was lost) sends a version from its start.
  if (chunk.index == 0 && version_) {
    if (chunk.version != *version_) progress.superseded = version_;
    *this = WeightAssembly();
  }
  if (!version_) {
    if (chunk.index != 0) return discard(name_of(chunk) + " arrived without its first chunk");
    // All chunks but the last have the first one's size: a total that disagrees is refused
    // before anything is allocated for it.
    const uint64_t most = uint64_t{chunk.count} * chunk.size;
    if (chunk.size == 0 || chunk.total_bytes > most || chunk.total_bytes <= most - chunk.size)
      return discard(name_of(chunk) + " says " + std::to_string(chunk.total_bytes) +
                     " bytes in all, which " + std::to_string(chunk.count) + " chunks of " +
                     std::to_string(chunk.size) + " bytes cannot hold");
    try {
      bytes_ = msg::Bytes::allocate(chunk.total_bytes, out_);
    } catch (const std::bad_alloc&) {
      return discard("cannot hold " + std::to_string(chunk.total_bytes) + " bytes of version " +
                     std::to_string(chunk.version));
    }
    version_ = chunk.version;
    count_ = chunk.count;
    total_ = chunk.total_bytes;
    checksum_ = chunk.checksum;
  } else if (chunk.version != *version_ || chunk.index != next_) {
    return discard(name_of(chunk) + " arrived where chunk " + std::to_string(next_) +
                   " was due");
  }
  if (chunk.count != count_ || chunk.total_bytes != total_ || chunk.checksum != checksum_)
    return discard(name_of(chunk) + " disagrees with its first chunk on the count, size or checksum");
  if (chunk.offset != filled_ || chunk.size > total_ - filled_)
    return discard(name_of(chunk) + " covers bytes " + std::to_string(chunk.offset) + ".." +
                   std::to_string(chunk.offset + chunk.size) + " where " +
                   std::to_string(filled_) + ".." + std::to_string(total_) + " remained");
  std::memcpy(out_ + filled_, chunk.data, chunk.size);
  filled_ += chunk.size;
  if (++next_ < count_) return progress;
  if (filled_ != total_)
    return discard("its chunks carried " + std::to_string(filled_) + " of " +
                   std::to_string(total_) + " bytes");
  if (const auto sum = checksum64(bytes_.data(), bytes_.size()); sum != checksum_)
    return discard("checksum " + checksum_text(sum) + " of the whole does not match the sender's " +
                   checksum_text(checksum_) + " (damaged in transit)");
  progress.whole = msg::WeightsFrame(std::move(bytes_));
  *this = WeightAssembly();
  return progress;
}

}  // namespace dvla
