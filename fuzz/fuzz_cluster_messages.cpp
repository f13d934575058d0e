// libFuzzer target: CAF's deserialization of what a peer sends, for every type dvla registers
// (actors/support/type_registry.hpp) — frames, status, the join's NodeInfo, NodeAssignment and
// IdentityProof, actor handles — and of whole messages, as BASP reads a message's payload. The
// first byte picks the type (or a whole message); the rest is the bytes. Loading must refuse what
// is malformed with an error, never crash or read outside the bytes; a NodeInfo that loads is
// then checked as the coordinator checks a join (check_bounds).
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/message.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <dvla/actors/support/type_registry.hpp>
#include <dvla/runtime/cluster/node_info.hpp>

namespace {

// One actor system for the whole run (no middleman: handles of other nodes cannot be made and
// are refused as such).
struct Context {
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;
  std::vector<std::string> names = dvla::actors::registered_type_names();

  Context() {
    dvla::actors::register_types(config);
    config.set("scheduler.max-threads", 1);
    system = std::make_unique<caf::actor_system>(config);
  }
};

// Never destroyed: CAF's own statics may be gone by the time static objects are, and an actor
// system torn down then crashes in its destructor.
Context& context() {
  static auto* c = new Context;
  return *c;
}

void check_loaded(const std::string& name, const caf::type_erased_value& value) {
  if (name == "dvla::NodeInfo")
    (void)dvla::check_bounds(*static_cast<const dvla::NodeInfo*>(value.get()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  auto& c = context();
  const size_t pick = data[0] % (c.names.size() + 1);
  caf::binary_deserializer source{*c.system, reinterpret_cast<const char*>(data + 1), size - 1};
  if (pick == c.names.size()) {  // a whole message: type names, then each value
    caf::message message;
    (void)source(message);
    return 0;
  }
  const auto& name = c.names[pick];
  auto value = c.system->types().make_value(name);
  if (!value) __builtin_trap();  // a registered name CAF cannot make: the registry is broken
  if (!value->load(source)) check_loaded(name, *value);
  return 0;
}
