// libFuzzer target: a node's distributor putting weight versions back together from sequences of
// chunks (runtime/distribution/weight_assembly.hpp), as a relay parent or a peer could send them:
// chunks out of order, repeated, of other versions, with counts, offsets, sizes and checksums
// that disagree. Each chunk crosses as a frame (built, then read back as the distributor reads
// it). Whatever the sequence, the assembly never crashes or reads outside a chunk, and a whole
// version it hands out has exactly the size and checksum its chunks state.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <dvla/core/checksum.hpp>
#include <dvla/messages/weight_chunk.hpp>
#include <dvla/runtime/distribution/weight_assembly.hpp>

namespace {

using namespace dvla;

// The distributor refuses a first chunk whose total is not the policy's version size before the
// assembly sees it; the target bounds totals as that check does for a small policy.
constexpr uint64_t max_total = 1 << 16;

// A chunk of `whole`, at `index` of `count` chunks of `size` bytes, with fields the fuzzer may
// bend.
msg::WeightChunk chunk_of(FuzzedDataProvider& in, const std::vector<std::byte>& whole,
                          uint64_t version, uint64_t checksum) {
  msg::WeightChunk c;
  c.version = version;
  const size_t size = in.ConsumeIntegralInRange<size_t>(1, 1024);
  c.count = static_cast<uint32_t>((whole.size() + size - 1) / size);
  c.index = in.ConsumeIntegralInRange<uint32_t>(0, c.count);
  c.offset = uint64_t{c.index} * size;
  c.total_bytes = whole.size();
  c.checksum = checksum;
  const size_t from = std::min<size_t>(c.offset, whole.size());
  c.size = std::min(size, whole.size() - from);
  c.data = whole.data() + from;
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {  // mostly honest, sometimes one field bent
    case 0:
      c.version = in.ConsumeIntegral<uint64_t>();
      break;
    case 1:
      c.count = in.ConsumeIntegral<uint32_t>();
      break;
    case 2:
      c.offset = in.ConsumeIntegral<uint64_t>();
      break;
    case 3:
      c.total_bytes = in.ConsumeIntegralInRange<uint64_t>(0, max_total);
      break;
    case 4:
      c.checksum = in.ConsumeIntegral<uint64_t>();
      break;
    default:
      break;
  }
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  // Two versions of the weights the upstream might send, of sizes the fuzzer picks.
  std::vector<std::byte> versions[2];
  uint64_t checksums[2];
  for (int v = 0; v < 2; ++v) {
    versions[v].resize(in.ConsumeIntegralInRange<size_t>(1, 4096));
    for (auto& b : versions[v]) b = std::byte(in.ConsumeIntegral<uint8_t>());
    checksums[v] = checksum64(versions[v].data(), versions[v].size());
  }
  WeightAssembly assembly;
  while (in.remaining_bytes() > 0) {
    const int v = in.ConsumeBool() ? 1 : 0;
    const auto sent = chunk_of(in, versions[v], static_cast<uint64_t>(v) + 7, checksums[v]);
    if (sent.index == 0 && sent.total_bytes > max_total) continue;  // the distributor's refusal
    const auto frame = msg::build(sent);
    auto chunk = msg::read(frame);
    if (!chunk) continue;  // fields that disagree with each other: refused as malformed
    auto progress = assembly.add(*chunk);
    if (!progress || !progress->whole) continue;
    // A whole version is the bytes its chunks' size and checksum describe, nothing else.
    const auto& whole = *progress->whole;
    if (whole.size() != chunk->total_bytes ||
        checksum64(whole.data(), whole.size()) != chunk->checksum)
      std::abort();
  }
  return 0;
}
