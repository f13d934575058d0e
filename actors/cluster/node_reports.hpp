#pragma once
// NodeReports (coordinator, control plane): where one node reports besides its segments, handed to
// it at join in place of the supervisor, which no peer holds. It passes its actors' rejection
// reports and, as a relay, the weight versions its downstream took, to the supervisor; anything
// else (a sampling or learning report would count env steps or updates; another process's
// messages) is refused and counted against the sender.
#include <caf/actor_system.hpp>
#include <caf/node_id.hpp>

#include <string>

#include <dvla/actors/cluster/coordinator.hpp>
#include <dvla/actors/interfaces.hpp>

namespace dvla::actors {

struct NodeReportsSetup {
  uint32_t node = 0;
  std::string name;      // the node's
  caf::node_id process;  // the process that joined as the node
  supervisor_actor supervisor;
  coordinator_core_actor coordinator;  // counts the refusals
};

node_reports_actor spawn_node_reports(caf::actor_system& system, NodeReportsSetup setup);

}  // namespace dvla::actors
