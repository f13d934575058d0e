#pragma once
// Sampler (lane 1): owns a batch of envs. Sends their observations to inference, steps them with
// the actions that come back, and ships every segment_length steps to the trainer as a segment,
// holding back once `segments_in_flight` segments are unacknowledged (backpressure).
//
// Episodic collection (GRPO, group_size > 0): every group of group_size envs starts from one
// initial state, each env runs one episode, and the segment ships once all of them have ended
// (steps after an env's episode ended are marked invalid); then the next round starts.
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <functional>
#include <memory>
#include <string>

#include "actors/interfaces.hpp"
#include "envs/batched_env.hpp"

namespace dvla::actors {

struct SamplerSetup {
  std::string name = "sampler/0";
  uint32_t id = 0;
  // Builds the env batch on the sampler's own thread (renderers need their context there).
  std::function<std::unique_ptr<envs::BatchedEnv>()> make_env;
  uint64_t seed = 1;
  int segment_length = 64;
  int segments_in_flight = 2;
  uint64_t step_budget = 0;  // batched steps before the sampler finishes; 0: no limit
  int group_size = 0;        // > 0: episodic collection in groups of this many envs
  double timeout_s = 60;
  inference_actor inference;
  trainer_actor trainer;
  caf::actor supervisor;  // receives metrics and (finished_atom, id); may be null
};

// Spawns a detached sampler; it starts stepping on start_atom and obeys control commands
// (pause, resume, shutdown).
sampler_actor spawn_sampler(caf::actor_system& system, SamplerSetup setup);

}  // namespace dvla::actors
