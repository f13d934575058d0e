#include <dvla/envs/env_batch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace dvla::envs {

uint64_t next_seed(uint64_t seed) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<uint64_t> derive_seeds(uint64_t seed, uint64_t batch_index, size_t n) {
  std::vector<uint64_t> seeds(n);
  uint64_t s = next_seed(seed ^ next_seed(batch_index + 1));
  for (auto& x : seeds) x = s = next_seed(s);
  return seeds;
}

void BatchedEnv::reset_for_evaluation(uint64_t seed) {
  reset(derive_seeds(seed, evaluation_seed_stream, size()));
}

void BatchOutput::resize(size_t envs, const EnvSpec& spec) {
  const auto obs = static_cast<size_t>(spec.observation_size());
  observations.assign(envs * obs, 0.f);
  final_observations.assign(envs * obs, 0.f);
  rewards.assign(envs, 0.f);
  terminated.assign(envs, 0);
  truncated.assign(envs, 0);
  episode_ends.assign(envs, {});
  images.assign(envs * static_cast<size_t>(spec.image_size()), 0);
  final_images.assign(envs * static_cast<size_t>(spec.image_size()), 0);
  instruction_tokens.assign(envs * static_cast<size_t>(spec.instruction_length), 0);
  instructions.assign(spec.instruction_length > 0 ? envs : 0, std::string());
  task_ids.assign(spec.task_names.empty() ? 0 : envs, 0);
}

void check_actions(const ActionSpace& space, const float* actions, size_t envs) {
  const auto per_env = static_cast<size_t>(space.tensor_dim());
  for (size_t i = 0; i < envs * per_env; ++i) {
    const float a = actions[i];
    const bool ok = space.is_discrete()
                        ? (a >= 0 && a < static_cast<float>(space.choices) && std::floor(a) == a)
                        : std::isfinite(a);
    if (!ok)
      throw std::invalid_argument(
          "env " + std::to_string(i / per_env) + " got action " + std::to_string(a) +
          (space.is_discrete() ? ", not an index below " + std::to_string(space.choices)
                               : ", not a finite number"));
  }
}

EnvBatch::EnvBatch(const Factory& make_env, size_t n) {
  if (n == 0) throw std::invalid_argument("an env batch needs at least one env");
  for (size_t i = 0; i < n; ++i) envs_.push_back(make_env());
  spec_ = envs_.front()->spec();
  episodes_.resize(n);
  out_.resize(n, spec_);
}

void EnvBatch::start_episode(size_t i, uint64_t seed) {
  const auto obs = static_cast<size_t>(spec_.observation_size());
  episodes_[i] = Episode{seed, 0.f, 0};
  envs_[i]->reset(seed, out_.observations.data() + i * obs);
}

void EnvBatch::reset(const std::vector<uint64_t>& seeds) {
  if (seeds.size() != envs_.size())
    throw std::invalid_argument("reset got " + std::to_string(seeds.size()) + " seeds for " +
                                std::to_string(envs_.size()) + " envs");
  for (size_t i = 0; i < envs_.size(); ++i) start_episode(i, seeds[i]);
  std::fill(out_.rewards.begin(), out_.rewards.end(), 0.f);
  std::fill(out_.terminated.begin(), out_.terminated.end(), 0);
  std::fill(out_.truncated.begin(), out_.truncated.end(), 0);
}

void EnvBatch::step(const float* actions) {
  check_actions(spec_.action, actions, envs_.size());
  const auto obs = static_cast<size_t>(spec_.observation_size());
  const auto act = static_cast<size_t>(spec_.action.tensor_dim());
  for (size_t i = 0; i < envs_.size(); ++i) {
    float* o = out_.observations.data() + i * obs;
    const StepResult r = envs_[i]->step(actions + i * act, o);
    auto& ep = episodes_[i];
    ep.episode_return += r.reward;
    ep.length += 1;
    const bool truncated =
        !r.terminated && spec_.max_episode_steps > 0 && ep.length >= spec_.max_episode_steps;
    out_.rewards[i] = r.reward;
    out_.terminated[i] = r.terminated;
    out_.truncated[i] = truncated;
    if (r.terminated || truncated) {
      out_.episode_ends[i] = EpisodeEnd{ep.episode_return, ep.length, r.success};
      std::copy(o, o + obs, out_.final_observations.data() + i * obs);
      start_episode(i, next_seed(ep.seed));
    }
  }
}

}  // namespace dvla::envs
