#include <dvla/runtime/policies/actor_critic.hpp>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/container/functional.h>
#include <torch/utils.h>

#include <cmath>

#include <dvla/runtime/policies/action_distribution.hpp>
#include <dvla/runtime/policies/fast_tanh.hpp>
#include <dvla/runtime/policies/observation_normalizer.hpp>

namespace dvla {
namespace {

// A tanh MLP whose last layer is scaled by `out_gain` (small for the policy head, so the first
// policy is close to uniform).
torch::nn::Sequential tower(int64_t in, const std::vector<int64_t>& hidden, int64_t out,
                            double out_gain, at::Generator& gen) {
  torch::nn::Sequential net;
  auto add_linear = [&](int64_t from, int64_t to, double gain) {
    torch::nn::Linear layer(from, to);
    torch::NoGradGuard no_grad;
    // Orthogonal init drawn from our own generator: the global one is shared by every thread.
    auto w = at::empty({to, from}).normal_(0, 1, gen);
    auto q = std::get<0>(at::linalg_qr(to >= from ? w : w.t()));
    layer->weight.copy_(gain * (to >= from ? q : q.t()));
    layer->bias.zero_();
    net->push_back(layer);
  };
  int64_t width = in;
  for (auto h : hidden) {
    add_linear(width, h, std::sqrt(2.0));
    net->push_back(torch::nn::Functional(fast_tanh));
    width = h;
  }
  add_linear(width, out, out_gain);
  return net;
}

}  // namespace

ActorCritic::ActorCritic(const envs::EnvSpec& spec, const ActorCriticOptions& options,
                         uint64_t seed)
    : space_(spec.action) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const int64_t in = spec.observation_size();
  const int64_t out = space_.is_discrete() ? space_.choices : space_.dim;
  actor_ = register_module("actor", tower(in, options.hidden, out, 0.01, gen));
  critic_ = register_module("critic", tower(in, options.hidden, 1, 1.0, gen));
  if (!space_.is_discrete())
    log_std_ =
        register_parameter("log_std", torch::full({space_.dim}, options.initial_log_std));
  if (options.normalize_observations)
    normalizer_ =
        register_module("observation_normalizer", std::make_shared<ObservationNormalizer>(in));
}

torch::Tensor ActorCritic::features(const torch::Tensor& state) const {
  const auto flat = state.flatten(1);
  return normalizer_ ? normalizer_->forward(flat) : flat;
}

void ActorCritic::update_statistics(const PolicyInput& batch) {
  if (normalizer_) normalizer_->update(batch.state.flatten(1));
}

ActionDistribution ActorCritic::distribution(const torch::Tensor& features) {
  return ActionDistribution(space_, actor_->forward(features), log_std_);
}

PolicyActions ActorCritic::act(const PolicyInput& input, bool deterministic,
                               at::Generator& generator) {
  torch::NoGradGuard no_grad;
  const auto f = features(input.state);  // once for both towers
  const auto d = distribution(f);
  auto actions = deterministic ? d.mode() : d.sample(generator);
  return {actions, d.log_prob(actions), critic_->forward(f).squeeze(-1)};
}

PolicyEvaluation ActorCritic::evaluate(const PolicyInput& input, const torch::Tensor& actions) {
  const auto f = features(input.state);
  const auto d = distribution(f);
  return {d.log_prob(actions), d.entropy(), critic_->forward(f).squeeze(-1)};
}

torch::Tensor ActorCritic::value(const PolicyInput& input) {
  return critic_->forward(features(input.state)).squeeze(-1);
}

std::shared_ptr<Policy> make_actor_critic(const envs::EnvSpec& spec,
                                          const ActorCriticOptions& options, uint64_t seed) {
  return std::make_shared<ActorCritic>(spec, options, seed);
}

std::shared_ptr<Policy> make_actor_critic(const envs::EnvSpec& spec,
                                          const std::vector<int64_t>& hidden, uint64_t seed) {
  return std::make_shared<ActorCritic>(spec, hidden, seed);
}

}  // namespace dvla
