#pragma once
// A user's own actors in a Graph (actors/graph/graph.hpp): stages on the data plane and
// observers on the control plane, each a CAF actor typed by its public interface
// (actors/interfaces.hpp: stage_actor, observer_actor) that the graph spawns once per run,
// watches like its own actors (a failure ends the run naming it) and stops at the end. Included
// with it: how frames travel through CAF (frame_inspect.hpp) and dvla's errors for an answer that
// refuses a message (errors.hpp: make_error(errc, text)).
#include <caf/actor_system.hpp>

#include <functional>
#include <string>

#include <dvla/actors/graph/graph.hpp>
#include <dvla/actors/interfaces.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/actors/support/frame_inspect.hpp>

namespace dvla {

struct StageSpec {
  std::string name;  // the stage's actor is named "stage/<name>"
  std::function<actors::stage_actor(caf::actor_system&)> spawn;
};

struct ObserverSpec {
  std::string name;  // the observer's actor is named "observer/<name>"
  std::function<actors::observer_actor(caf::actor_system&)> spawn;
};

// Appends a stage: segments pass the stages in the order they were added.
void add_stage(Graph& graph, std::string name,
               std::function<actors::stage_actor(caf::actor_system&)> spawn);
// Adds an observer: it receives every version announcement and metrics report of the run.
void add_observer(Graph& graph, std::string name,
                  std::function<actors::observer_actor(caf::actor_system&)> spawn);

}  // namespace dvla
