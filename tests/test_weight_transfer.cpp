// A weight version crossing between nodes in chunks: cut once, put back together in order, and
// checked whole (size and checksum) before anything may stage it. Damaged, truncated, reordered or
// inconsistent chunk streams are refused with the reason, and an unfinished version is
// superseded by a newer one's first chunk.
#include <doctest/doctest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include <dvla/core/checksum.hpp>
#include <dvla/messages/weight_chunk.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/distribution/chunked_version.hpp>
#include <dvla/runtime/distribution/weight_assembly.hpp>

using namespace dvla;

namespace {

// A weight-update frame of `n` parameters holding `version`.
msg::WeightsFrame weights(uint64_t version, size_t n) {
  std::vector<float> flat(n);
  std::iota(flat.begin(), flat.end(), static_cast<float>(version));
  msg::WeightUpdate u;
  u.version = version;
  u.manifest = {{"w", {static_cast<int64_t>(n)}, 0}};
  u.flat = {flat.data(), {static_cast<int64_t>(n)}};
  return msg::build(u);
}

bool same_bytes(const msg::WeightsFrame& a, const msg::WeightsFrame& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

msg::WeightChunk chunk_of(const msg::WeightChunkFrame& f) {
  auto c = msg::read(f);
  REQUIRE_MESSAGE(c, c.error().message());
  return *c;
}

// Feeds every chunk; the last answer.
Expected<WeightAssembly::Progress> feed(WeightAssembly& a, const ChunkedVersion& v) {
  Expected<WeightAssembly::Progress> last = Error("no chunks");
  for (const auto& f : v.chunks) {
    last = a.add(chunk_of(f));
    if (!last) return last;
  }
  return last;
}

}  // namespace

TEST_CASE("the checksum sees one changed bit") {
  std::vector<unsigned char> bytes(4096, 7);
  const auto before = checksum64(bytes.data(), bytes.size());
  CHECK(checksum64(bytes.data(), bytes.size()) == before);  // deterministic
  bytes[2048] ^= 0x10;
  CHECK(checksum64(bytes.data(), bytes.size()) != before);
}

TEST_CASE("a version cut into chunks is put back together byte for byte") {
  const auto frame = weights(5, 10000);  // ~40 KB
  const auto cut = cut_into_chunks(frame, 5, 4096);
  CHECK(cut.version == 5);
  CHECK(cut.total_bytes == frame.size());
  CHECK(cut.count == (frame.size() + 4095) / 4096);
  REQUIRE(cut.complete());
  const auto first = chunk_of(cut.chunks.front()), last = chunk_of(cut.chunks.back());
  CHECK(first.size == 4096);
  CHECK(last.offset + last.size == frame.size());
  CHECK(first.checksum == checksum64(frame.data(), frame.size()));

  WeightAssembly assembly;
  for (size_t i = 0; i + 1 < cut.chunks.size(); ++i) {
    auto p = assembly.add(chunk_of(cut.chunks[i]));
    REQUIRE_MESSAGE(p, p.error().message());
    CHECK_FALSE(p->whole);
    CHECK(assembly.assembling() == 5u);
  }
  auto done = assembly.add(chunk_of(cut.chunks.back()));
  REQUIRE_MESSAGE(done, done.error().message());
  REQUIRE(done->whole);
  CHECK(same_bytes(*done->whole, frame));
  CHECK(msg::read(*done->whole)->version == 5);
  CHECK_FALSE(assembly.assembling());
  // Version 0 (the learner's first) is a version like any other.
  auto zero = feed(assembly, cut_into_chunks(weights(0, 10000), 0, 4096));
  REQUIRE_MESSAGE(zero, zero.error().message());
  REQUIRE(zero->whole);
  CHECK(msg::read(*zero->whole)->version == 0);
  // A version smaller than one chunk is one chunk.
  const auto small = cut_into_chunks(weights(6, 8), 6, 1 << 20);
  CHECK(small.count == 1);
  auto one = feed(assembly, small);
  REQUIRE(one);
  REQUIRE(one->whole);
  CHECK(same_bytes(*one->whole, weights(6, 8)));
}

TEST_CASE("a damaged chunk is found by the checksum of the whole, and nothing is handed on") {
  const auto frame = weights(7, 10000);
  auto cut = cut_into_chunks(frame, 7, 4096);
  // Flip one byte inside the data of chunk 3: the chunk frame itself stays a valid message.
  auto c = chunk_of(cut.chunks[3]);
  std::vector<std::byte> data(c.data, c.data + c.size);
  data[100] ^= std::byte{0x40};
  c.data = data.data();
  cut.chunks[3] = msg::build(c);
  WeightAssembly assembly;
  auto result = feed(assembly, cut);
  REQUIRE_FALSE(result);
  CHECK_MESSAGE(result.error().message().find("weight transfer of version 7 discarded: checksum") ==
                    0,
                result.error().message());
  CHECK(result.error().message().find("damaged in transit") != std::string::npos);
  // The next good version goes through.
  auto next = feed(assembly, cut_into_chunks(weights(8, 10000), 8, 4096));
  REQUIRE_MESSAGE(next, next.error().message());
  CHECK(next->whole);
}

TEST_CASE("a truncated transfer is superseded by the next version, and said so") {
  const auto v9 = cut_into_chunks(weights(9, 10000), 9, 4096);
  WeightAssembly assembly;
  for (size_t i = 0; i < 4; ++i) REQUIRE(assembly.add(chunk_of(v9.chunks[i])));
  const auto v10 = cut_into_chunks(weights(10, 10000), 10, 4096);
  auto first = assembly.add(chunk_of(v10.chunks[0]));
  REQUIRE(first);
  CHECK(first->superseded == 9u);
  CHECK(assembly.assembling() == 10u);
  for (size_t i = 1; i < v10.chunks.size(); ++i) {
    auto p = assembly.add(chunk_of(v10.chunks[i]));
    REQUIRE_MESSAGE(p, p.error().message());
    CHECK_FALSE(p->superseded);
    if (i + 1 == v10.chunks.size()) CHECK(p->whole);
  }
}

TEST_CASE("chunks out of order, without their first, or disagreeing with it are refused") {
  const auto v = cut_into_chunks(weights(11, 10000), 11, 4096);
  SUBCASE("a gap") {
    WeightAssembly assembly;
    REQUIRE(assembly.add(chunk_of(v.chunks[0])));
    auto gap = assembly.add(chunk_of(v.chunks[2]));
    REQUIRE_FALSE(gap);
    const auto& why = gap.error().message();
    CHECK(why.find("weight transfer of version 11 discarded: chunk 2 of ") == 0);
    CHECK(why.find("of version 11 arrived where chunk 1 was due") != std::string::npos);
    CHECK_FALSE(assembly.assembling());
  }
  SUBCASE("no first chunk") {
    WeightAssembly assembly;
    auto orphan = assembly.add(chunk_of(v.chunks[1]));
    REQUIRE_FALSE(orphan);
    CHECK(orphan.error().message().find("arrived without its first chunk") != std::string::npos);
  }
  SUBCASE("a total its chunks cannot hold, refused before anything is allocated") {
    auto c = chunk_of(v.chunks[0]);
    c.total_bytes = uint64_t{1} << 62;  // a hostile size
    WeightAssembly assembly;
    auto huge = assembly.add(c);
    REQUIRE_FALSE(huge);
    CHECK(huge.error().message().find("cannot hold") != std::string::npos);
  }
  SUBCASE("a later chunk with another checksum") {
    WeightAssembly assembly;
    REQUIRE(assembly.add(chunk_of(v.chunks[0])));
    auto c = chunk_of(v.chunks[1]);
    c.checksum ^= 1;
    auto odd = assembly.add(c);
    REQUIRE_FALSE(odd);
    CHECK(odd.error().message().find("disagrees with its first chunk") != std::string::npos);
  }
  SUBCASE("a chunk frame cut short is not a chunk") {
    const auto& f = v.chunks[0];
    auto cut = msg::read(msg::WeightChunkFrame(msg::Bytes::copy_of(f.data(), f.size() / 2)));
    REQUIRE_FALSE(cut);
    CHECK(cut.error().message().find("weight chunk: ") == 0);
  }
}
