#include <dvla/envs/env_config.hpp>

#include <stdexcept>

#include <dvla/envs/cartpole.hpp>
#include <dvla/envs/env_batch.hpp>
#include <dvla/envs/tabletop/tabletop_batch.hpp>

namespace dvla::envs {

std::unique_ptr<BatchedEnv> make_batched_env(const EnvConfig& config, size_t envs) {
  if (config.name == "cartpole")
    return std::make_unique<EnvBatch>([] { return std::make_unique<CartPole>(); }, envs);
  if (config.name == "synthetic") return std::make_unique<SyntheticEnv>(config.synthetic, envs);
  if (config.name == "tabletop")
    return std::make_unique<tabletop::TabletopBatch>(config.tabletop, envs);
  throw std::invalid_argument("unknown env '" + config.name +
                              "' (known: cartpole, synthetic, tabletop)");
}

EnvSpec spec_of(const EnvConfig& config) {
  if (config.name == "tabletop") return tabletop::env_spec(config.tabletop);
  return make_batched_env(config, 1)->spec();
}

}  // namespace dvla::envs
