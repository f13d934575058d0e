#pragma once
// Sampler (lane 1): owns a batch of envs. Sends their observations to inference, steps them with
// the actions that come back, and ships segments to the trainer, holding back once
// `segments_in_flight` segments are unacknowledged (backpressure). Its envs are split into
// `env_buffers` buffers (double buffering): while one buffer's envs step, the observations of
// another are with inference, so env time and forward passes overlap.
//
// This is the actor shell; how it collects is a strategy chosen once from its setup
// (actors/sampling/collection.hpp): continuous segments (async), lock-step rounds (sync), or
// episodic groups (GRPO, group_size > 0).
//
// Segments pass the graph's stages (user actors) in order on their way to the trainer; a stage
// that drops one returns the credit at once (the sampler counts it in its report), and a dropped
// final segment is announced to the trainer (finished_atom), which then stops waiting for it.
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <dvla/actors/interfaces.hpp>
#include <dvla/envs/batched_env.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>
#include <dvla/runtime/platform/placement_report.hpp>

namespace dvla::gpu {
class PoolLease;
}

namespace dvla::actors {

struct SamplerSetup {
  std::string name = "sampler/0";
  uint32_t id = 0;     // unique in the run: segments carry it
  uint32_t group = 0;  // its env group's index, in its reports
  ThreadPlacement placement;  // graph.placement = auto: the cores its thread is pinned to
  // graph.sampling_nice: its thread and its envs' run this many nice steps below the process's.
  int nice_steps = 0;
  // Builds an env batch of the given size on the sampler's own thread (renderers need their
  // context there); called once per env buffer.
  std::function<std::unique_ptr<envs::BatchedEnv>(size_t envs)> make_env;
  size_t envs = 8;      // over all buffers
  int env_buffers = 2;  // double buffering: one buffer steps while another waits for actions
  uint64_t seed = 1;
  int segment_length = 64;
  int segments_in_flight = 2;
  uint64_t step_budget = 0;  // batched steps before the sampler finishes; 0: no limit
  // A restarted sampler's: env steps its earlier lives shipped, which count toward its budget.
  uint64_t steps_before = 0;
  int group_size = 0;        // > 0: episodic collection in groups of this many envs
  // mode = sync: after shipping a segment, wait for its acknowledgement (which the trainer sends
  // once the new weights are distributed) and then ask for fresh actions.
  bool lock_step = false;
  // Segments carry what their envs observe after the last step, for a learner that values them
  // with its own critic (ppo.advantage_values = learner); continuous collection only.
  bool bootstrap_observations = false;
  std::shared_ptr<LaneTrack> track;  // where its work and waits are measured; may be null
  // Its lease on the sim pool: segment buffers come from it. Null: the heap.
  std::shared_ptr<gpu::PoolLease> sim_lease;
  inference_actor inference;
  // How long it waits for a lost inference replica or trainer to be replaced before it gives up.
  double replacement_timeout_s = 60;
  // The graph's stages (name, actor): each segment passes them in order before the trainer.
  std::vector<std::pair<std::string, stage_actor>> stages;
  // Where segments go: the trainer, or on a node of a multi-node run the sampler's uplink.
  segment_sink_actor trainer;
  caf::actor supervisor;  // receives metrics and (finished_atom, id); may be null
};

// Spawns a detached sampler; it starts stepping on start_atom and obeys control commands
// (pause, resume, shutdown). When its inference replica is lost it waits (replacement_timeout_s)
// for the replica that replaces it, then asks that one for what the lost one held; when its
// trainer is lost, likewise for the new trainer, which gets every segment the lost one did not
// acknowledge.
sampler_actor spawn_sampler(caf::actor_system& system, SamplerSetup setup);

}  // namespace dvla::actors
