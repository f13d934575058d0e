// Seeds of fuzz_cluster_messages: each value a peer sends in a join, and whole join messages, as
// CAF serializes them (the first byte picks the type as the target reads it).
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/message.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <dvla/actors/interfaces.hpp>
#include <dvla/actors/support/cluster_inspect.hpp>
#include <dvla/actors/support/type_registry.hpp>

namespace fs = std::filesystem;

namespace {

using namespace dvla;
using namespace dvla::actors;

template <class T>
void seed(caf::actor_system& system, const fs::path& dir, const std::string& type, T value) {
  const auto names = registered_type_names();
  const auto it = std::find(names.begin(), names.end(), type);
  if (it == names.end()) throw std::runtime_error("no registered type " + type);
  std::vector<char> bytes(1, static_cast<char>(it - names.begin()));
  caf::binary_serializer sink{system, bytes};
  if (auto err = sink(value)) throw std::runtime_error("cannot serialize " + type);
  fs::create_directories(dir);
  std::ofstream(dir / type.substr(6), std::ios::binary).write(bytes.data(), bytes.size());
}

void seed_message(caf::actor_system& system, const fs::path& file, caf::message message) {
  std::vector<char> bytes(1, static_cast<char>(registered_type_names().size()));
  caf::binary_serializer sink{system, bytes};
  if (auto err = sink(message)) throw std::runtime_error("cannot serialize a message");
  std::ofstream(file, std::ios::binary).write(bytes.data(), bytes.size());
}

}  // namespace

void seed_cluster_messages(const fs::path& corpus) {
  const auto dir = corpus / "fuzz_cluster_messages";
  caf::actor_system_config config;
  register_types(config);
  caf::actor_system system{config};
  NodeInfo info{"a", "host-a", 4242, 8, 16384, "1 package, 8 cores", 1, 2};
  NodeAssignment assignment;
  assignment.node = 3;
  assignment.name = "a";
  assignment.config_text = "samplers = 2\n";
  assignment.samplers = 2;
  IdentityProof proof{"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
                      std::string(256, '\x5a')};
  seed(system, dir, "dvla::NodeInfo", info);
  seed(system, dir, "dvla::NodeAssignment", assignment);
  seed(system, dir, "dvla::IdentityProof", proof);
  seed(system, dir, "dvla::WeightsSource", WeightsSource{"b", "10.0.0.2", 7010});
  seed(system, dir, "dvla::EndpointRef", EndpointRef{"a/sampler-0", {}, true, "a"});
  seed_message(
      system, dir / "join",
      caf::make_message(join_atom::value, info, node_actor{}, std::string(64, 'e'), proof));
  seed_message(system, dir / "challenge",
               caf::make_message(challenge_atom::value, std::string(64, 'f')));
  seed_message(system, dir / "assignment",
               caf::make_message(assignment, node_reports_actor{}, proof));
  seed_message(system, dir / "relay",
               caf::make_message(relay_atom::value, uint32_t{2}, WeightsSource{"b", "", 7010}));
}
