// A weight version crossing between nodes in chunks: cut once, put back together in order, and
// checked whole (size and checksum) before anything may stage it. Damaged, truncated, reordered or
// inconsistent chunk streams are refused with the reason, and an unfinished version is
// superseded by a newer one's first chunk.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include <dvla/core/checksum.hpp>
#include <dvla/messages/weight_chunk.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/distribution/chunked_version.hpp>
#include <dvla/runtime/distribution/relay_tree.hpp>
#include <dvla/runtime/distribution/uplink_budget.hpp>
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

TEST_CASE("a version restarted from its first chunk (a new upstream) is put together afresh") {
  const auto v12 = cut_into_chunks(weights(12, 10000), 12, 4096);
  WeightAssembly assembly;
  for (size_t i = 0; i < 3; ++i) REQUIRE(assembly.add(chunk_of(v12.chunks[i])));
  // The relay sending it was lost; its parent sends the same version from the start.
  auto progress = feed(assembly, v12);
  REQUIRE_MESSAGE(progress, progress.error().message());
  CHECK_FALSE(progress->superseded);  // the same version: nothing was given up
  REQUIRE(progress->whole);
  CHECK(same_bytes(*progress->whole, weights(12, 10000)));
}

TEST_CASE("the relay tree keeps the learner at fanout copies and routes around a lost relay") {
  CHECK_THROWS_WITH(RelayTree(0), "relay tree: fanout 0 must be at least 1");
  RelayTree tree(2);
  // Breadth first: 1, 2 under the learner; 3, 4 under 1; 5, 6 under 2; 7 under 3.
  std::vector<uint32_t> parents;
  for (uint32_t node = 1; node <= 7; ++node) parents.push_back(tree.add(node));
  CHECK(parents == std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3});
  CHECK(tree.children(RelayTree::root).size() == 2);  // the learner's copies per version
  CHECK(tree.depth(7) == 3);  // learner -> 1 -> 3 -> 7
  CHECK_THROWS(tree.add(3));
  // Relay 1 is lost: its children move to the learner, which then sends 3 copies.
  auto moved = tree.remove(1);
  CHECK(moved == std::vector<std::pair<uint32_t, uint32_t>>{{3, 0}, {4, 0}});
  CHECK_FALSE(tree.contains(1));
  CHECK(tree.parent(7) == 3);
  CHECK(tree.depth(7) == 2);
  CHECK(tree.children(RelayTree::root) == std::vector<uint32_t>{2, 3, 4});
  // A leaf goes without moving anyone; one not in the tree is no-op.
  CHECK(tree.remove(7).empty());
  CHECK(tree.remove(42).empty());
  // A new node takes the first free slot breadth first (under 3, whose child left).
  CHECK(tree.add(8) == 3);
  CHECK(tree.size() == 6);
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

TEST_CASE("the uplink budget lets chunks go at its rate, one chunk of debt at a time") {
  using Clock = UplinkBudget::Clock;
  const auto t0 = Clock::now();
  const auto at = [t0](double s) {
    return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  UplinkBudget none;
  CHECK_FALSE(none.capped());
  for (int i = 0; i < 100; ++i) CHECK(none.take(size_t{1} << 30, t0) == 0);
  CHECK_THROWS(UplinkBudget(-1));

  UplinkBudget budget(1e6, t0);  // 1 MB/s
  CHECK(budget.capped());
  CHECK(budget.take(500000, t0) == 0);  // goes: the budget was not in debt
  // 0.5 MB of debt: the next may go in 0.5 s, and not before.
  CHECK(budget.take(500000, t0) == doctest::Approx(0.5));
  CHECK(budget.take(500000, at(0.25)) == doctest::Approx(0.25));
  CHECK(budget.take(500000, at(0.5)) == 0);
  CHECK(budget.take(1, at(0.5)) == doctest::Approx(0.5));
  // Steady sending from 0.5 s (0.5 MB of debt) to 10.5 s: 9.5 MB went.
  double sent = 0, now = 0.5;
  while (now < 10.5) {
    const double wait = budget.take(100000, at(now));
    if (wait == 0)
      sent += 100000;
    else
      now += wait;
  }
  CHECK(sent == doctest::Approx(9.5e6).epsilon(0.02));
  // A long idle spell saves at most 50 ms of sending.
  CHECK(budget.take(10000, at(100)) == 0);
  CHECK(budget.take(50000, at(100)) == 0);
  CHECK(budget.take(1, at(100)) > 0);
}
