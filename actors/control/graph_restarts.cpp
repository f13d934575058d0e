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
  if (!sampler && !replica && !evaluator) return {RestartOutcome::not_restartable, {}};
  const bool current = sampler    ? is(graph_.samplers[*sampler], failed)
                       : replica  ? is(graph_.replicas[*replica], failed)
                                  : is(graph_.evaluator, failed);
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
  ++total_;
  const auto life = static_cast<uint64_t>(budget.total());
  std::string what;
  if (sampler) {
    restart_sampler(*sampler, life);
    what = fmt::format("with fresh envs; the {} env steps it shipped before count",
                       shipped_[name]);
  } else if (replica) {
    restart_replica(*replica, life);
    what = "with the latest weights it had staged; its samplers ask it from now on";
  } else {
    restart_evaluator();
    what = "to evaluate again";
  }
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

void GraphRestarts::retarget_endpoint(const std::string& name, const caf::actor& restarted) {
  for (const auto& e : graph_.endpoints)
    if (e.name == name) caf::anon_send(e.handle, replace_atom::value, restarted);
}

}  // namespace dvla::actors
