#pragma once
// Registers every type dvla sends between actors with CAF, under one name, identically on every
// node (a type unknown to a peer arrives as an empty message, so all nodes must call this).
#include <caf/actor_system_config.hpp>

namespace dvla::actors {

void register_types(caf::actor_system_config& config);

}  // namespace dvla::actors
