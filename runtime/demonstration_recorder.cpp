#include "runtime/demonstration_recorder.hpp"

#include <algorithm>

#include "envs/tabletop/scripted_expert.hpp"
#include "envs/tabletop/tabletop_batch.hpp"
#include "runtime/demonstration_file.hpp"
#include "runtime/observation_buffer.hpp"

namespace dvla {

using namespace envs::tabletop;

namespace {

constexpr size_t batch_envs = 8;

struct Episode {
  InitialState start;
  std::unique_ptr<ObservationBuffer> observations;
  std::vector<float> actions;
  bool done = false, success = false;
};

}  // namespace

Expected<RecordingSummary> record_scripted_demonstrations(
    const TabletopConfig& config, int per_task, uint64_t seed, const std::string& path,
    bool successes_only, const std::function<void(const RecordingSummary&)>& progress) {
  auto s = suite(config.suite);
  if (!s) return s.error();
  std::vector<InitialState> starts;
  for (const auto& task : s->train_tasks)
    for (int i = 0; i < per_task; ++i)
      starts.push_back(training_start(task, seed + static_cast<uint64_t>(i)));
  msg::DatasetHeader header;
  header.env = "tabletop";
  header.suite = config.suite;
  header.source = "scripted";
  header.image_size = static_cast<uint32_t>(config.image_size);
  header.front_camera = config.front_camera;
  header.wrist_camera = config.wrist_camera;
  auto writer = DemonstrationWriter::create(path, header);
  if (!writer) return writer.error();

  RecordingSummary summary;
  const size_t n = std::min(batch_envs, starts.size());
  TabletopBatch batch(config, n);
  for (size_t first = 0; first < starts.size(); first += n) {
    // A round: up to n episodes side by side; envs without an episode left repeat the last one
    // unrecorded, so the batch stays whole.
    std::vector<InitialState> round;
    std::vector<Episode> episodes(n);
    for (size_t i = 0; i < n; ++i) {
      episodes[i].start = starts[std::min(first + i, starts.size() - 1)];
      episodes[i].done = first + i >= starts.size();
      episodes[i].observations = std::make_unique<ObservationBuffer>(batch.spec());
      round.push_back(episodes[i].start);
    }
    batch.reset_to(round);
    std::vector<ScriptedExpert> experts;
    for (const auto& e : episodes) experts.emplace_back(e.start.task);
    std::vector<float> actions(n * action_size);
    while (
        std::any_of(episodes.begin(), episodes.end(), [](const Episode& e) { return !e.done; })) {
      for (size_t i = 0; i < n; ++i) {
        const auto a = experts[i].act(batch.env(i).state());
        std::copy(a.begin(), a.end(), actions.begin() + i * action_size);
        if (episodes[i].done) continue;
        episodes[i].observations->append(batch.output(), i);
        episodes[i].actions.insert(episodes[i].actions.end(), a.begin(), a.end());
      }
      batch.step(actions.data());
      for (size_t i = 0; i < n; ++i) {
        auto& e = episodes[i];
        if (e.done || !batch.output().episode_ended(i)) continue;
        e.done = true;
        e.success = batch.output().episode_ends[i].success;
        const auto steps = static_cast<int64_t>(e.actions.size() / action_size);
        summary.steps += steps;
        ++summary.episodes;
        summary.successes += e.success;
        if (e.success || !successes_only) {
          msg::Demonstration demo;
          demo.task = task_name(e.start.task);
          demo.instruction = instruction(e.start.task);
          demo.layout_seed = e.start.layout_seed;
          demo.observations = e.observations->view({steps});
          demo.actions = {e.actions.data(), {steps, action_size}};
          demo.success = e.success;
          if (auto w = (*writer)->write(demo); !w) return w.error();
        }
        if (progress) progress(summary);
      }
    }
  }
  if (auto f = (*writer)->finish(); !f) return f.error();
  return summary;
}

}  // namespace dvla
