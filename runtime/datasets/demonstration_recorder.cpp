#include <dvla/runtime/datasets/demonstration_recorder.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <random>

#include <dvla/envs/tabletop/scripted_expert.hpp>
#include <dvla/envs/tabletop/tabletop_batch.hpp>
#include <dvla/runtime/datasets/demonstration_file.hpp>
#include <dvla/runtime/trajectories/observation_buffer.hpp>

namespace dvla {

using namespace envs::tabletop;

namespace {

constexpr size_t batch_envs = 8;
constexpr int max_attempts = 4;  // starts drawn per wanted demonstration, at most

// Adds noise to the executed translation (0-2) and yaw (5); the gripper command stays the
// expert's.
void perturb(float* action, double stddev, std::mt19937_64& rng) {
  if (stddev <= 0) return;
  std::normal_distribution<float> noise(0.f, static_cast<float>(stddev));
  for (int k : {0, 1, 2, 5}) action[k] = std::clamp(action[k] + noise(rng), -1.f, 1.f);
}

struct Episode {
  InitialState start;
  std::unique_ptr<ObservationBuffer> observations;
  std::vector<float> actions;
  bool done = false, success = false;

  int64_t steps() const { return static_cast<int64_t>(actions.size() / action_size); }
};

// One round: up to batch.size() episodes from `starts`, side by side; envs without an episode
// repeat the last one unrecorded, so the batch stays whole. `ended` hears each episode as it ends.
Status play_round(TabletopBatch& batch, const std::vector<InitialState>& starts, double noise,
                  std::mt19937_64& rng, const std::function<Status(const Episode&)>& ended) {
  const size_t n = batch.size();
  std::vector<InitialState> round;
  std::vector<Episode> episodes(n);
  for (size_t i = 0; i < n; ++i) {
    episodes[i].start = starts[std::min(i, starts.size() - 1)];
    episodes[i].done = i >= starts.size();
    episodes[i].observations = std::make_unique<ObservationBuffer>(batch.spec());
    round.push_back(episodes[i].start);
  }
  batch.reset_to(round);
  std::vector<ScriptedExpert> experts;
  for (const auto& e : episodes) experts.emplace_back(e.start.task);
  std::vector<float> actions(n * action_size);
  while (std::any_of(episodes.begin(), episodes.end(), [](const Episode& e) { return !e.done; })) {
    for (size_t i = 0; i < n; ++i) {
      const auto a = experts[i].act(batch.env(i).state());
      std::copy(a.begin(), a.end(), actions.begin() + i * action_size);
      perturb(actions.data() + i * action_size, noise, rng);
      if (episodes[i].done) continue;
      episodes[i].observations->append(batch.output(), i);
      episodes[i].actions.insert(episodes[i].actions.end(), a.begin(), a.end());
    }
    batch.step(actions.data());
    for (size_t i = 0; i < n; ++i) {
      if (episodes[i].done || !batch.output().episode_ended(i)) continue;
      episodes[i].done = true;
      episodes[i].success = batch.output().episode_ends[i].success;
      if (auto s = ended(episodes[i]); !s) return s;
    }
  }
  return {};
}

msg::Demonstration demonstration(const Episode& e) {
  msg::Demonstration demo;
  demo.task = task_name(e.start.task);
  demo.instruction = instruction(e.start.task);
  demo.layout_seed = e.start.layout_seed;
  demo.observations = e.observations->view({e.steps()});
  demo.actions = {e.actions.data(), {e.steps(), action_size}};
  demo.success = e.success;
  return demo;
}

}  // namespace

Expected<RecordingSummary> record_scripted_demonstrations(
    const TabletopConfig& config, const RecordingOptions& options, const std::string& path,
    const std::function<void(const RecordingSummary&)>& progress) {
  // Actions live in [-1, 1]: noise beyond 1 would drown the expert.
  if (!(options.action_noise >= 0 && options.action_noise <= 1))
    return Error("action noise must be in [0, 1], got " + std::to_string(options.action_noise));
  auto s = suite(config.suite);
  if (!s) return s.error();
  // Each task's starts are drawn from seed, seed + 1, ...; when only successes count, an episode
  // the noise spoiled is replaced by the task's next start (at most max_attempts per wanted one).
  std::deque<InitialState> pending;
  std::map<int, int> drawn;  // starts drawn per task id
  for (const auto& task : s->train_tasks) {
    for (int i = 0; i < options.per_task; ++i)
      pending.push_back(training_start(task, options.seed + static_cast<uint64_t>(i)));
    drawn[task_id(task)] = options.per_task;
  }
  msg::DatasetHeader header;
  header.env = "tabletop";
  header.suite = config.suite;
  header.source = options.action_noise > 0
                      ? "scripted, action noise " + std::to_string(options.action_noise)
                      : "scripted";
  header.image_size = static_cast<uint32_t>(config.image_size);
  header.front_camera = config.front_camera;
  header.wrist_camera = config.wrist_camera;
  auto writer = DemonstrationWriter::create(path, header);
  if (!writer) return writer.error();

  RecordingSummary summary;
  std::mt19937_64 rng(options.seed);
  TabletopBatch batch(config, std::min(batch_envs, pending.size()));
  while (!pending.empty()) {
    const auto take = std::min(batch.size(), pending.size());
    const std::vector<InitialState> starts(pending.begin(), pending.begin() + take);
    pending.erase(pending.begin(), pending.begin() + take);
    auto played = play_round(batch, starts, options.action_noise, rng, [&](const Episode& e) {
      summary.steps += e.steps();
      ++summary.episodes;
      summary.successes += e.success;
      if (e.success || !options.successes_only) {
        if (auto w = (*writer)->write(demonstration(e)); !w) return w;
      } else if (int& n = drawn[task_id(e.start.task)]; n < max_attempts * options.per_task) {
        pending.push_back(training_start(e.start.task, options.seed + static_cast<uint64_t>(n++)));
      }
      if (progress) progress(summary);
      return Status{};
    });
    if (!played) return played.error();
  }
  if (auto f = (*writer)->finish(); !f) return f.error();
  return summary;
}

}  // namespace dvla
