#pragma once
// A test graph's second env group: the synthetic env with CartPole's observation and action
// spaces (so one policy serves both), episodes of exactly 25 steps, 1 sampler x 4 envs, served by
// its own inference pool "synthetic-inference" (one replica).
#include <dvla/actors/graph/graph.hpp>
#include <dvla/envs/env_config.hpp>

namespace dvla::test {

inline void add_synthetic_group(Graph& graph) {
  envs::EnvConfig synthetic;
  synthetic.name = "synthetic";
  synthetic.synthetic.observation_size = 4;
  synthetic.synthetic.choices = 2;
  synthetic.synthetic.episode_length = 25;
  EnvGroup group;
  group.name = "synthetic-25";
  group.env_spec = [synthetic] { return envs::spec_of(synthetic); };
  group.make_env = [synthetic](uint32_t, size_t n) { return envs::make_batched_env(synthetic, n); };
  group.samplers = 1;
  group.envs_per_sampler = 4;
  group.inference_pool = "synthetic-inference";
  graph.env_groups.push_back(group);
  graph.inference_pools.push_back({"synthetic-inference", 1});
}

}  // namespace dvla::test
