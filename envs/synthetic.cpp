#include <dvla/envs/synthetic.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <dvla/envs/env_config.hpp>
#include <dvla/envs/env_registry.hpp>

namespace dvla::envs {

SyntheticEnv::SyntheticEnv(const SyntheticConfig& config, size_t n)
    : config_(config), n_(n), latency_(config.step_latency_us) {
  if (n == 0) throw std::invalid_argument("an env batch needs at least one env");
  if (config.observation_size < 1 || config.choices < 2 || config.episode_length < 1 ||
      config.step_latency_us < 0)
    throw std::invalid_argument(
        "synthetic env: observation_size >= 1, choices >= 2, episode_length >= 1 and "
        "step_latency_us >= 0 are required");
  spec_.name = "synthetic";
  spec_.observation_shape = {config.observation_size};
  spec_.action.type = ActionSpace::Type::discrete;
  spec_.action.choices = config.choices;
  spec_.max_episode_steps = config.episode_length;
  state_.assign(n, 0);
  length_.assign(n, 0);
  return_.assign(n, 0.f);
  seed_.assign(n, 0);
  out_.resize(n, spec_);
}

void SyntheticEnv::observe(size_t env, float* out) {
  for (int64_t k = 0; k < config_.observation_size; ++k) {
    state_[env] = next_seed(state_[env]);
    out[k] = static_cast<float>(static_cast<double>(state_[env] >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  }
}

void SyntheticEnv::reset(const std::vector<uint64_t>& seeds) {
  if (seeds.size() != n_)
    throw std::invalid_argument("reset got " + std::to_string(seeds.size()) + " seeds for " +
                                std::to_string(n_) + " envs");
  const auto obs = static_cast<size_t>(config_.observation_size);
  for (size_t i = 0; i < n_; ++i) {
    seed_[i] = state_[i] = seeds[i];
    length_[i] = 0;
    return_[i] = 0.f;
    observe(i, out_.observations.data() + i * obs);
  }
}

void SyntheticEnv::step(const float* actions) {
  check_actions(spec_.action, actions, n_);
  latency_.spend(n_);
  const auto obs = static_cast<size_t>(config_.observation_size);
  for (size_t i = 0; i < n_; ++i) {
    float* o = out_.observations.data() + i * obs;
    const float wanted = o[0] > 0.f ? 1.f : 0.f;
    const float reward = actions[i] == wanted ? 1.f : 0.f;
    return_[i] += reward;
    length_[i] += 1;
    out_.rewards[i] = reward;
    out_.terminated[i] = 0;
    out_.truncated[i] = length_[i] >= config_.episode_length;
    observe(i, o);
    if (out_.truncated[i]) {
      out_.episode_ends[i] = EpisodeEnd{return_[i], length_[i], false};
      std::copy(o, o + obs, out_.final_observations.data() + i * obs);
      seed_[i] = state_[i] = next_seed(seed_[i]);
      length_[i] = 0;
      return_[i] = 0.f;
      observe(i, o);
    }
  }
}

}  // namespace dvla::envs

namespace dvla::envs {

EnvEntry synthetic_env() {
  EnvEntry e;
  e.name = "synthetic";
  e.settings = [](EnvConfig& config) {
    auto& c = config.synthetic;
    return std::vector<Setting>{
        {"synthetic.observation_size", "synthetic env: floats per observation",
         &c.observation_size},
        {"synthetic.choices", "synthetic env: discrete actions", &c.choices},
        {"synthetic.episode_length", "synthetic env: steps per episode", &c.episode_length},
        {"synthetic.step_latency_us",
         "synthetic env: wall-clock cost of one env step (a batch of n sleeps n times this)",
         &c.step_latency_us},
    };
  };
  e.validate = [](const EnvConfig& config) -> Status {
    const auto& s = config.synthetic;
    if (s.observation_size < 1 || s.choices < 2 || s.episode_length < 1 || s.step_latency_us < 0)
      return Error(
          "synthetic env needs observation_size >= 1, choices >= 2, episode_length >= 1, "
          "step_latency_us >= 0");
    return Status::ok();
  };
  e.spec = [](const EnvConfig& config) { return SyntheticEnv(config.synthetic, 1).spec(); };
  e.make = [](const EnvConfig& config, size_t n) -> std::unique_ptr<BatchedEnv> {
    return std::make_unique<SyntheticEnv>(config.synthetic, n);
  };
  return e;
}

}  // namespace dvla::envs
