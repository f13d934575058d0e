#include <dvla/actors/sampling/episodic_collection.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace dvla::actors {

// A segment holds whole episodes: at least the env's time limit.
int64_t EpisodicCollection::segment_length(const envs::BatchedEnv& env, int64_t configured) const {
  const int limit = env.spec().max_episode_steps;
  if (limit <= 0)
    throw std::invalid_argument("grpo needs episodes that end, but env '" + env.spec().name +
                                "' has no time limit");
  if (env.size() % static_cast<size_t>(group_size_) != 0)
    throw std::invalid_argument("groups of " + std::to_string(group_size_) + " do not divide " +
                                std::to_string(env.size()) + " envs of a buffer");
  return std::max<int64_t>(configured, limit);
}

// A round of episodes, each group of envs from one initial state of its own.
void EpisodicCollection::start(EnvBuffer& b, SamplerShell& shell) {
  const auto envs = b.env->size();
  const auto group = static_cast<size_t>(group_size_);
  // Batch indices apart from the continuous samplers' (their ids) and from evaluation seeds.
  const uint64_t index = (uint64_t{1} << 39) | (uint64_t{shell.id()} << 24) | round_++;
  const auto group_seeds = envs::derive_seeds(shell.seed(), index, envs / group);
  std::vector<uint64_t> seeds(envs);
  std::vector<int32_t> groups(envs);
  for (size_t e = 0; e < envs; ++e) {
    seeds[e] = group_seeds[e / group];
    groups[e] = static_cast<int32_t>(e / group);
  }
  shell.reset(b, seeds);
  b.segment->start_episodes(std::move(groups));
}

// Once every episode of the round has ended the segment ships (no bootstrapping: nothing follows
// an ended episode) and the next round starts, unless the budget is spent.
void EpisodicCollection::on_answer(EnvBuffer& b, const msg::ActionBatch& answer,
                                   SamplerShell& shell) {
  if (shell.draining()) return;
  shell.step(b, answer);
  if (!b.segment->episodes_ended()) return;
  const std::vector<float> no_bootstrap(b.env->size(), 0.f);
  const bool last = shell.budget_spent();
  shell.ship(b, no_bootstrap.data(), last);
  if (last)
    shell.drain();
  else
    start(b, shell);
}

}  // namespace dvla::actors
