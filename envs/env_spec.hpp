#pragma once
// What an environment looks like from outside: observation shape and action space.
#include <cstdint>
#include <string>
#include <vector>

namespace dvla::envs {

struct ActionSpace {
  enum class Type { discrete, continuous };
  Type type = Type::discrete;
  int64_t choices = 2;  // discrete: number of actions
  // Continuous: action dimensions, each bounded by [low, high]. The registry's envs get actions
  // clipped to them (env.clip_actions, envs/clipped_actions.hpp); a policy's Gaussian is not.
  int64_t dim = 1;
  float low = -1.0f;
  float high = 1.0f;

  bool is_discrete() const { return type == Type::discrete; }
  // Floats per action in an action tensor: a discrete action travels as its index.
  int64_t tensor_dim() const { return is_discrete() ? 1 : dim; }
};

struct EnvSpec {
  std::string name;
  std::vector<int64_t> observation_shape;
  ActionSpace action;
  int max_episode_steps = 0;  // episodes are truncated after this many steps; 0: never
  // Multi-modal envs (the tabletop suite) add camera images and a tokenised instruction to the
  // float observation (which then holds proprioception).
  std::vector<int64_t> image_shape;  // per env [cameras, height, width, 3] uint8; empty: none
  int64_t instruction_length = 0;    // token ids per env; 0: no instruction
  int64_t vocabulary_size = 0;       // token ids are below this
  // Envs with several tasks name them; BatchOutput::task_ids index this. A task's family is its
  // name up to the first '/' ("stack/red-on-blue" is of family "stack").
  std::vector<std::string> task_names;

  int64_t image_size() const {
    int64_t n = image_shape.empty() ? 0 : 1;
    for (auto d : image_shape) n *= d;
    return n;
  }

  int64_t observation_size() const {
    int64_t n = 1;
    for (auto d : observation_shape) n *= d;
    return n;
  }
};

}  // namespace dvla::envs
