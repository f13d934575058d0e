#pragma once
// RunStatus: where a training run stands, as the supervisor sees it. Plain data for progress
// lines, the JSON summary and tests.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <dvla/messages/metrics.hpp>
#include <dvla/runtime/lanes/lane_report.hpp>
#include <dvla/runtime/platform/placement_report.hpp>

namespace dvla {

// The latest evaluation during the run (deterministic actions on the evaluation states): the
// evaluator's report, and when the version it evaluated was taken.
struct EvaluationSummary : msg::EvaluationReport {
  uint64_t env_steps = 0;    // collected by the run when that version was taken for evaluation
  double wall_seconds = 0;  // since the run started, when that version was taken
};

// Control round trips: the supervisor to every actor's control endpoint and back, timed from the
// first command sent to the last acknowledgement (control.ping_interval_s apart).
struct ControlSummary {
  uint64_t rounds = 0;
  double last_us = 0, mean_us = 0, max_us = 0;
};

// One memory pool's figures (gpu/memory_pool.hpp's PoolStats, as plain data for the status).
struct PoolSummary {
  std::string name;
  uint64_t budget = 0, reserved = 0, peak_reserved = 0, in_use = 0, peak_in_use = 0;
  int64_t largest_free_block = -1;  // -1: the pool cannot say (CUDA)
  uint64_t failed_requests = 0;
};

// One env group's share of the run (a graph may hold several groups of different envs or
// settings; the default graph has one).
struct GroupStatus {
  std::string name;
  uint64_t env_steps = 0;
  uint64_t episodes = 0;
  double mean_return = 0;   // over its last 100 finished episodes
  double success_rate = 0;  // of the same episodes
};

// One node of a multi-node run (the coordinator's own samplers, when it hosts some, are node 0,
// "coordinator"). Env steps and segments count once the learner acknowledged them.
struct NodeStatus {
  uint32_t id = 0;
  std::string name, host;
  std::string state;  // joining | running | lost
  uint32_t cores = 0, gpus = 0, samplers = 0, envs = 0, replicas = 0;
  std::string group;  // the env group its samplers belong to
  uint64_t env_steps = 0;
  double steps_per_second = 0;  // since it started
  uint64_t segments = 0, segment_bytes = 0;
  double policy_lag_mean = 0;  // versions its segments' oldest steps were behind at acknowledgement
  uint64_t weights_version = 0;  // the latest its distributor acknowledged
  std::string weights_from;      // where its weights come from: "learner" or a relay node
  uint64_t weight_updates = 0, weight_bytes = 0;
  double control_rtt_us = 0;  // the last control round to its endpoints and back
  // The weights it started with (the first its distributor acknowledged; its samplers start
  // after), and the oldest version that acted in its first acknowledged segment.
  uint64_t start_version = 0, first_segment_version = 0;
  std::string lost_reason;  // why it was lost; empty while it is not
  uint64_t refused = 0;     // its messages the coordinator's side refused
};

// graph.placement = auto: this process's topology, the plan, and each lane thread's cores as
// planned and as the OS applied them (empty with placement none).
struct PlacementStatus {
  std::string topology, plan;
  std::vector<ThreadPlacementRecord> threads;
  std::vector<MemoryPlacementRecord> memory;  // replicas' buffers (machines of several NUMA nodes)
};

struct RunStatus {
  uint64_t env_steps = 0;
  double wall_seconds = 0;
  double steps_per_second = 0;
  uint64_t episodes = 0;
  double mean_return = 0;                    // over the last 100 finished episodes
  double success_rate = 0;                   // of the same episodes (envs with a goal)
  uint64_t version = 0;                      // latest policy version
  double policy_lag_mean = 0;                // versions behind, averaged over every trained sample
  std::vector<uint64_t> policy_lag_samples;  // [lag]: trained samples that many versions behind
  uint64_t samples_trained = 0;
  uint64_t dropped_stale = 0;      // env steps dropped by the staleness bound
  uint64_t rejected_messages = 0;  // malformed messages refused by any actor
  // A multi-node run: messages of peers that joined as no node, refused by the coordinator's side
  // (the nodes' own are in NodeStatus::refused; every refusal is in rejected_messages too).
  uint64_t refused_strangers = 0;
  // TLS connections the coordinator's process refused: past cluster.max_connections_per_address.
  uint64_t refused_connections = 0;
  msg::LearnerStats learner;       // the last update, averaged over its gradient steps
  uint64_t evaluations = 0;        // evaluations finished during the run
  EvaluationSummary last_evaluation;
  EvaluationSummary first_at_target;  // the first that reached stop.eval_*; episodes 0: none yet
  ControlSummary control;
  std::vector<PoolSummary> memory;  // the sim and model pools
  std::vector<GroupStatus> groups;  // one per env group, in the graph's order
  uint64_t segments_dropped = 0;    // by the graph's stages (their env steps count)
  std::vector<NodeStatus> nodes;    // a multi-node run's nodes, lost ones included
  uint64_t version_skew = 0;  // newest minus oldest weights version among its running nodes
  PlacementStatus placement;
  LaneReport lanes;  // each lane's busy and CPU time so far (filled where the run is polled)
  std::string last_checkpoint;      // directory of the newest checkpoint; empty: none
  uint64_t checkpoint_failures = 0;  // saves that failed (the run went on; the next one retried)
  std::string checkpoint_error;      // why the last of them failed
  uint64_t restarts = 0;             // failed lane actors restarted (fault.max_restarts)
  std::string last_restart;          // the last of them: who failed, why, and what was done
  bool finished = false;
  std::string failure;  // why the run stopped early; empty when it did not
};

}  // namespace dvla
