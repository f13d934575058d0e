#pragma once
// The public entry point of a training run: build the actor graph from a Config and a Graph (or
// GraphParts, for the default graph's shape), run it until the env-step budget is spent, and
// return the final weights. No CAF or LibTorch in this header: an app that only composes graphs
// needs neither.
#include <functional>
#include <memory>
#include <string>

#include <dvla/actors/graph/graph.hpp>
#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/graph/graph_parts.hpp>
#include <dvla/runtime/lanes/lane_report.hpp>
#include <dvla/runtime/run/run_requests.hpp>
#include <dvla/runtime/run/run_status.hpp>

namespace dvla {

struct TrainingResult {
  RunStatus status;
  msg::WeightsFrame weights;  // the trainer's latest version
  std::string checkpoint;     // with a logdir: the checkpoint of that version
  LaneReport lanes;           // how busy each lane was
  std::string stopped_by;     // why the run ended before max_env_steps: "max_seconds" or
                              // "stop request"; empty when the env-step budget was spent
};

// Called about every config.run.progress_interval_s seconds while the run goes on.
using ProgressCallback = std::function<void(const RunStatus&)>;

// Runs the actor graph until max_env_steps are collected, max_seconds have passed or `requests`
// asks it to stop (each evaluation it asks for is run on the latest weights and shows in the
// status like a periodic one); with a logdir, checkpoints go to <logdir>/checkpoints (the last one
// at the end); with a trace file, every lane's spans go there once the graph has stopped. `resume`
// continues a run from one of its checkpoints: version, counters, optimizer and RNG go on from
// there.
// The error names the piece of the graph or the actor that failed and why.
Expected<TrainingResult> train(const Config& config, const Graph& graph,
                               const ProgressCallback& on_progress = {},
                               std::shared_ptr<const Checkpoint> resume = nullptr,
                               const RunRequests* requests = nullptr);

// train(config, graph_of(config, parts), ...): the default graph with the user's env and policy.
Expected<TrainingResult> train(const Config& config, const GraphParts& parts,
                               const ProgressCallback& on_progress = {},
                               std::shared_ptr<const Checkpoint> resume = nullptr,
                               const RunRequests* requests = nullptr);

}  // namespace dvla
