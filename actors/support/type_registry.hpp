#pragma once
// Registers every type dvla sends between actors with CAF, under one name, identically on every
// node (a type unknown to a peer arrives as an empty message, so all nodes must call this).
#include <caf/actor_system_config.hpp>

#include <string>
#include <vector>

namespace dvla::actors {

void register_types(caf::actor_system_config& config);

// The names register_types gives the types, in its order (for fuzzing CAF's deserialization
// of each: fuzz/fuzz_cluster_messages.cpp).
std::vector<std::string> registered_type_names();

}  // namespace dvla::actors
