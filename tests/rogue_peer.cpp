// dvla-test-rogue: a peer that attacks a running coordinator, built from the installed API only
// (as anyone who reaches its ports could). dvla-test-rogue HOST CONTROL_PORT WEIGHTS_PORT CASE
// [CERT KEY CAFILE] tries one attack and prints one line: "CASE: refused: WHY" when the
// coordinator said no, "CASE: TAKEN" when it took the message (a test fails on it), or
// "CASE: unreachable: WHY" when it could not connect. Cases:
//   release   ask the coordinator's published port to release every node (end the run)
//   quorum    tell it its join timeout passed, anonymously
//   weights   hand the learner's published weights port a whole version 2^64-1
//   chunk     hand it a first chunk of a version that claims 2^40 bytes
//   join      join anonymously (no sender to bind a node to)
#include <unistd.h>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <cstdint>
#include <iostream>
#include <limits>
#include <thread>
#include <string>
#include <vector>

#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/weight_chunk.hpp>
#include <dvla/messages/weight_update.hpp>

namespace {

using namespace dvla;
using namespace dvla::actors;

constexpr auto wait = std::chrono::seconds(10);

// Sends `xs` as a request expecting `Answer...` and says how it was answered.
template <class... Answer, class... Ts>
std::string ask(caf::scoped_actor& self, const caf::actor& to, Ts&&... xs) {
  std::string out;
  self->request(to, wait, std::forward<Ts>(xs)...)
      .receive([&](Answer...) { out = "TAKEN"; },
               [&](const caf::error& e) { out = "refused: " + describe(e); });
  return out;
}

msg::WeightsFrame huge_version() {
  static const std::vector<float> weights(4, 0.5f);
  msg::WeightUpdate update;
  update.version = std::numeric_limits<uint64_t>::max();
  update.manifest = {msg::ParameterEntry{"w", {4}, 0}};
  update.flat = {weights.data(), {4}};
  return msg::build(update);
}

msg::WeightChunkFrame huge_chunk() {
  static const std::vector<std::byte> bytes(1024);
  msg::WeightChunk chunk;
  chunk.version = 1u << 20;
  chunk.index = 0;
  chunk.count = 1u << 20;
  chunk.total_bytes = uint64_t{1} << 40;
  chunk.data = bytes.data();
  chunk.size = bytes.size();
  return msg::build(chunk);
}

std::string attack(PlaneSystems& planes, const std::string& host, uint16_t control,
                   uint16_t weights, const std::string& kind) {
  // Connected as the published interface says (CAF checks it), then used as any actor: a typed
  // handle limits what its holder sends only at compile time.
  Expected<caf::actor> target = Error("unknown case");
  if (kind == "weights" || kind == "chunk") {
    auto door = planes.connect<relay_door_actor>(planes.data(), host, weights);
    if (door) target = caf::actor_cast<caf::actor>(*door);
    else target = door.error();
  } else {
    auto door = planes.connect<coordinator_actor>(planes.data(), host, control);
    if (door) target = caf::actor_cast<caf::actor>(*door);
    else target = door.error();
  }
  if (!target) return "unreachable: " + target.error().message();
  caf::scoped_actor self{planes.data()};
  if (kind == "release") return ask<uint32_t>(self, *target, release_atom::value);
  if (kind == "weights") return ask<uint64_t>(self, *target, huge_version());
  if (kind == "chunk") return ask<uint64_t, bool>(self, *target, huge_chunk());
  if (kind == "quorum" || kind == "join") {
    // Anonymous: CAF gives the receiver no sender. The answer, if any, cannot come back: the
    // coordinator's log and counters say what it did.
    if (kind == "quorum")
      caf::anon_send(*target, quorum_atom::value);
    else
      caf::anon_send(*target, join_atom::value, NodeInfo{"rogue", "rogue-host", 1, 1, 0, "", 0, 1},
                     node_actor{});
    std::this_thread::sleep_for(std::chrono::seconds(1));  // let it cross before we go
    return "refused: (anonymous: see the coordinator's log)";
  }
  return "unknown case";
}

}  // namespace

int main(int argc, char** argv) {
  alarm(120);  // never outlive a test that forgot us
  if (argc != 5 && argc != 8) {
    std::cerr << "usage: dvla-test-rogue HOST CONTROL_PORT WEIGHTS_PORT CASE [CERT KEY CAFILE]\n";
    return 2;
  }
  NetworkOptions network;
  if (argc == 8) network = {0, 0, argv[5], argv[6], argv[7]};
  PlaneSystems planes(false, 2, network);
  const std::string kind = argv[4];
  std::cout << kind << ": "
            << attack(planes, argv[1], static_cast<uint16_t>(std::stoi(argv[2])),
                      static_cast<uint16_t>(std::stoi(argv[3])), kind)
            << std::endl;
  return 0;
}
