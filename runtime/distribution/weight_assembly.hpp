#pragma once
// WeightAssembly: a node's distributor puts a version's chunks back together and checks the whole
// frame (its size and checksum) before anything may stage it, so a replica never swaps in a
// partial or damaged version. Chunks come in order from one upstream; a first chunk starts afresh:
// of a newer version it supersedes an unfinished older one (the upstream moved on, or lost the
// rest); of the same version it restarts it (a new upstream, after the old one was lost).
#include <cstddef>
#include <cstdint>
#include <optional>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/messages/weight_chunk.hpp>

namespace dvla {

class WeightAssembly {
 public:
  struct Progress {
    std::optional<msg::WeightsFrame> whole;  // once the last chunk arrived and the whole checked
    std::optional<uint64_t> superseded;  // an unfinished version this chunk's version replaced
  };

  // Takes the next chunk. An error (a chunk out of order, one that disagrees with its version's
  // first chunk, a whole of the wrong size or checksum) names what was wrong and discards the
  // unfinished version; the next version's first chunk starts afresh.
  Expected<Progress> add(const msg::WeightChunk& chunk);

  // The version being put together, if any.
  std::optional<uint64_t> assembling() const { return version_; }

 private:
  Error discard(const std::string& what);

  std::optional<uint64_t> version_;  // none between versions (a version may be 0)
  uint32_t next_ = 0, count_ = 0;
  uint64_t total_ = 0, checksum_ = 0, filled_ = 0;
  msg::Bytes bytes_;
  std::byte* out_ = nullptr;
};

}  // namespace dvla
