#include <dvla/actors/control/graph_restarts.hpp>

#include <caf/all.hpp>

#include <optional>

#include <fmt/core.h>

#include <dvla/envs/batched_env.hpp>

namespace dvla::actors {
namespace {

// The index of the setup named `name`, if one is.
template <class Setup>
std::optional<size_t> named(const std::vector<Setup>& setups, const std::string& name) {
  for (size_t i = 0; i < setups.size(); ++i)
    if (setups[i].name == name) return i;
  return std::nullopt;
}

template <class Handle>
bool is(const Handle& current, const caf::actor_addr& addr) {
  return current && current.address() == addr;
}

}  // namespace

GraphRestarts::GraphRestarts(RestartContext context, BuiltGraph& graph)
    : context_(std::move(context)), graph_(graph) {}

RestartOutcome GraphRestarts::on_failure(const caf::actor_addr& failed, const std::string& name,
                                         const std::string& why) {
  const auto sampler = named(graph_.sampler_setups, name);
  const auto replica = named(graph_.replica_setups, name);
  const bool evaluator = graph_.evaluator_setup && graph_.evaluator_setup->name == name;
  const bool trainer = context_.fault.restart_trainer && graph_.trainer_setup &&
                       graph_.trainer_setup->name == name;
  if (!sampler && !replica && !evaluator && !trainer) return {RestartOutcome::not_restartable, {}};
  const bool current = sampler     ? is(graph_.samplers[*sampler], failed)
                       : replica   ? is(graph_.replicas[*replica], failed)
                       : evaluator ? is(graph_.evaluator, failed)
                                   : is(graph_.trainer, failed);
  if (!current) return {RestartOutcome::replaced_before, {}};
  const auto& fault = context_.fault;
  auto& budget = budgets_.try_emplace(name, fault.max_restarts, fault.window_s).first->second;
  if (fault.max_restarts == 0)
    return {RestartOutcome::refused, why + " (no restarts: fault.max_restarts = 0)"};
  if (!budget.allow())
    return {RestartOutcome::refused,
            fmt::format("{} (it failed more than fault.max_restarts = {} times within "
                        "fault.window_s = {:g} s; restarted {} times in all)",
                        why, fault.max_restarts, fault.window_s, budget.total())};
  const auto life = static_cast<uint64_t>(budget.total());
  std::string what;
  if (sampler) {
    restart_sampler(*sampler, life);
    what = fmt::format("with fresh envs; the {} env steps it shipped before count",
                       shipped_[name]);
  } else if (replica) {
    restart_replica(*replica, life);
    what = "with the latest weights it had staged; its samplers ask it from now on";
  } else if (evaluator) {
    restart_evaluator();
    what = "to evaluate again";
  } else {
    auto from = restart_trainer();
    if (!from)
      return {RestartOutcome::refused, why + " (restarting it failed: " + from.error().message() +
                                           ")"};
    what = *from;
  }
  ++total_;
  return {RestartOutcome::restarted,
          fmt::format("{}; restarted {} (restart {} of this actor, at most {} within {:g} s)", why,
                      what, budget.total(), fault.max_restarts, fault.window_s)};
}

void GraphRestarts::restart_sampler(size_t index, uint64_t life) {
  auto setup = graph_.sampler_setups[index];
  setup.steps_before = shipped_[setup.name];
  setup.seed = envs::next_seed(setup.seed + life);  // fresh episodes, not the failed ones again
  auto sampler = spawn_sampler(*context_.system, setup);
  graph_.samplers[index] = sampler;
  const auto handle = caf::actor_cast<caf::actor>(sampler);
  context_.watch(setup.name, handle);
  retarget_endpoint(setup.name, handle);
  if (started_) caf::anon_send(sampler, start_atom::value);
}

void GraphRestarts::restart_replica(size_t index, uint64_t life) {
  auto setup = graph_.replica_setups[index];
  setup.seed = envs::next_seed(setup.seed + life);
  const auto lost = graph_.replicas[index];
  auto replica = spawn_inference(*context_.system, setup);
  graph_.replicas[index] = replica;
  const auto handle = caf::actor_cast<caf::actor>(replica);
  context_.watch(setup.name, handle);
  retarget_endpoint(setup.name, handle);
  for (size_t i = 0; i < graph_.sampler_setups.size(); ++i) {
    auto& sampler = graph_.sampler_setups[i];
    if (sampler.inference != lost) continue;
    sampler.inference = replica;  // a later life of the sampler too
    caf::anon_send(graph_.samplers[i], replica_atom::value, replica);
  }
}

void GraphRestarts::restart_evaluator() {
  const auto& setup = *graph_.evaluator_setup;
  graph_.evaluator = spawn_evaluator(*context_.system, setup);
  context_.watch(setup.name, caf::actor_cast<caf::actor>(graph_.evaluator));
}

Expected<std::string> GraphRestarts::restart_trainer() {
  auto setup = *graph_.trainer_setup;
  const auto point = context_.trainer_restart_point();
  std::string from;
  if (!point.last_checkpoint.empty()) {
    auto loaded = load_checkpoint(point.last_checkpoint);
    if (!loaded) return loaded.error().within("its last checkpoint");
    from = fmt::format("from its last checkpoint {} (version {}; the updates after it are lost)",
                       point.last_checkpoint, loaded->state.version);
    setup.resume = std::make_shared<const Checkpoint>(std::move(*loaded));
  } else {
    from = setup.resume ? "from the checkpoint the run resumed from (it saved none yet)"
                        : "from the run's first weights (it saved no checkpoint yet)";
  }
  setup.continue_after = point.progress;
  auto trainer = spawn_trainer(*context_.system, setup);
  graph_.trainer = trainer;
  const auto handle = caf::actor_cast<caf::actor>(trainer);
  context_.watch(setup.name, handle);
  retarget_endpoint(setup.name, handle);
  const segment_sink_actor sink = trainer;
  for (size_t i = 0; i < graph_.sampler_setups.size(); ++i) {
    graph_.sampler_setups[i].trainer = sink;  // a later life of the sampler too
    caf::anon_send(graph_.samplers[i], trainer_atom::value, sink);
  }
  caf::anon_send(trainer, start_atom::value);  // it publishes its first version at once
  return fmt::format("{}; its versions go on from {}; the samplers ship to it from now on", from,
                     point.progress.version + 1);
}

void GraphRestarts::retarget_endpoint(const std::string& name, const caf::actor& restarted) {
  for (const auto& e : graph_.endpoints)
    if (e.name == name) caf::anon_send(e.handle, replace_atom::value, restarted);
}

}  // namespace dvla::actors
