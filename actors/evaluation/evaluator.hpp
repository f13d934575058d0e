#pragma once
// Evaluator: periodic evaluation during a run. It owns an env of `episodes` envs and a policy
// replica; each WeightsFrame it is sent is evaluated on the env's evaluation starts (never a
// training start) and answered with an evaluation Metrics frame, which names the GIF it wrote
// of the first episodes when one was due.
#include <caf/actor_system.hpp>

#include <functional>
#include <memory>
#include <string>

#include <dvla/actors/interfaces.hpp>
#include <dvla/envs/batched_env.hpp>

namespace dvla {
class Policy;
namespace gpu {
class PoolLease;
}
}  // namespace dvla

namespace dvla::actors {

struct EvaluatorSetup {
  std::string name = "evaluator";
  std::function<std::unique_ptr<envs::BatchedEnv>()> make_env;  // one env per episode
  std::function<std::shared_ptr<Policy>(const envs::EnvSpec&)> make_policy;
  uint64_t seed = 1;
  EvalActions actions = EvalActions::mean;  // eval.actions
  int torch_threads = 1;  // LibTorch intra-op threads of its forward passes
  int nice = 0;           // its thread's nice value (eval.nice): above 0, below the lanes
  // Every `video_every`-th evaluation writes a GIF of its first `video_episodes` episodes to
  // `video_dir` (envs with images only); an empty dir or 0: none.
  std::string video_dir;
  int video_every = 0, video_episodes = 3;
  // Its lease on the model pool: its policy's flat buffer comes from it. Null: the heap.
  std::shared_ptr<gpu::PoolLease> model_lease;
};

// Detached: an evaluation runs on a thread of its own, beside training.
evaluator_actor spawn_evaluator(caf::actor_system& system, EvaluatorSetup setup);

}  // namespace dvla::actors
