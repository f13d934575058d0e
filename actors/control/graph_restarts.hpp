#pragma once
// GraphRestarts: the supervisor's answer to a lane actor that failed (an env that threw, a forward
// pass that did). Instead of ending the run it spawns the actor again from the setup it was built
// from (actors/graph/graph_builder.hpp):
//   a sampler      with fresh envs (and fresh seeds). The env steps its earlier lives shipped count
//                  toward its budget; those of its unshipped segment are dropped, never counted.
//                  Segments it shipped before it failed are trained on as usual.
//   a replica      on the same weight buffers, which hold the latest version the distributor
//                  staged; the samplers it served are told to ask the new one.
//   the evaluator  the supervisor runs the evaluation it was on again.
// Its control endpoint stands for the new actor. Each actor is restarted at most
// fault.max_restarts times within fault.window_s; the failure after that ends the run, as does
// one of any other actor (the trainer, whose last checkpoint stays whole; the distributor, the
// user's stages and observers, the control plane).
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <functional>
#include <map>
#include <string>

#include <dvla/actors/graph/graph_builder.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/run/restart_budget.hpp>

namespace dvla::actors {

struct RestartContext {
  caf::actor_system* system = nullptr;  // where the graph's actors live (its data plane)
  FaultConfig fault;
  // Watches a restarted actor as the first one was (the supervisor links and monitors it).
  std::function<void(const std::string& name, const caf::actor&)> watch;
};

struct RestartOutcome {
  enum Kind {
    restarted,        // `text` says what was done
    refused,          // its restarts are spent: `text` says why the run ends
    not_restartable,  // not a sampler, replica or evaluator: the failure ends the run
    replaced_before,  // an earlier life of an actor already restarted: nothing to do
  };
  Kind kind;
  std::string text;
};

class GraphRestarts {
 public:
  // `graph` is the supervisor's: restarts replace its handles in place.
  GraphRestarts(RestartContext context, BuiltGraph& graph);

  // The actor `failed`, known as `name`, ended with `why`.
  RestartOutcome on_failure(const caf::actor_addr& failed, const std::string& name,
                            const std::string& why);
  // Sampler `name` shipped a segment with `env_steps` env steps (its report says so).
  void shipped(const std::string& name, uint64_t env_steps) { shipped_[name] += env_steps; }
  // The samplers were told to start: a restarted one starts at once from now on.
  void samplers_started() { started_ = true; }
  uint64_t total() const { return total_; }

 private:
  void restart_sampler(size_t index, uint64_t life);
  void restart_replica(size_t index, uint64_t life);
  void restart_evaluator();
  void retarget_endpoint(const std::string& name, const caf::actor& restarted);

  RestartContext context_;
  BuiltGraph& graph_;
  std::map<std::string, RestartBudget> budgets_;  // by actor name
  std::map<std::string, uint64_t> shipped_;       // env steps per sampler name, over its lives
  bool started_ = false;
  uint64_t total_ = 0;
};

}  // namespace dvla::actors
