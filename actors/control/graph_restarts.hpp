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
//   the trainer    only with fault.restart_trainer: from the run's last checkpoint (the updates
//                  since are lost), its versions and counters going on after the last announced;
//                  the samplers ship to it from now on, again the segments the lost one had not
//                  acknowledged.
// Its control endpoint stands for the new actor. Each actor is restarted at most
// fault.max_restarts times within fault.window_s; the failure after that ends the run, as does
// one of any other actor (the trainer without fault.restart_trainer, whose last checkpoint stays
// whole; the distributor, the user's stages and observers, the control plane).
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <functional>
#include <map>
#include <string>

#include <dvla/actors/graph/graph_builder.hpp>
#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/run/restart_budget.hpp>

namespace dvla::actors {

// Where a restarted trainer starts from: how far the run's learner had got, as announced, and
// the directory of the last checkpoint the run saved (empty: none yet).
struct TrainerRestartPoint {
  TrainerProgress progress;
  std::string last_checkpoint;
};

struct RestartContext {
  caf::actor_system* system = nullptr;  // where the graph's actors live (its data plane)
  FaultConfig fault;
  // Watches a restarted actor as the first one was (the supervisor links and monitors it).
  std::function<void(const std::string& name, const caf::actor&)> watch;
  // Asked when the trainer fails (fault.restart_trainer).
  std::function<TrainerRestartPoint()> trainer_restart_point;
};

struct RestartOutcome {
  enum Kind {
    restarted,        // `text` says what was done
    refused,          // its restarts are spent: `text` says why the run ends
    not_restartable,  // no sampler, replica, evaluator or (fault.restart_trainer) trainer
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
  // What it restarted from, or why it could not.
  Expected<std::string> restart_trainer();
  void retarget_endpoint(const std::string& name, const caf::actor& restarted);

  RestartContext context_;
  BuiltGraph& graph_;
  std::map<std::string, RestartBudget> budgets_;  // by actor name
  std::map<std::string, uint64_t> shipped_;       // env steps per sampler name, over its lives
  bool started_ = false;
  uint64_t total_ = 0;
};

}  // namespace dvla::actors
