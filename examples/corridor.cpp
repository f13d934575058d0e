// A user-composed graph: bring your own environment, add your own actors, keep dvla's learner.
//
// Corridor: the agent starts in the middle of a corridor of `length` cells and must walk to the
// goal at the right end; stepping costs a little, reaching the goal pays 1. A stage on the data
// plane shapes the rewards (a bonus for progress towards the goal, read from the observations)
// before the learner sees them; an observer on the control plane counts the versions it is told.
// Built out of tree against the installed package (examples/CMakeLists.txt); run: ./corridor
#include <fmt/core.h>
#include <caf/all.hpp>

#include <atomic>
#include <memory>
#include <random>
#include <vector>

#include <dvla/actors/graph/training.hpp>
#include <dvla/actors/graph/user_actors.hpp>
#include <dvla/envs/env_batch.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>

namespace {

class Corridor final : public dvla::envs::Env {
 public:
  explicit Corridor(int length) : length_(length) {
    spec_.name = "corridor";
    spec_.observation_shape = {2};
    spec_.action.type = dvla::envs::ActionSpace::Type::discrete;
    spec_.action.choices = 2;  // 0: left, 1: right
    spec_.max_episode_steps = 4 * length;
  }
  const dvla::envs::EnvSpec& spec() const override { return spec_; }
  void reset(uint64_t seed, float* observation) override {
    std::mt19937_64 rng(seed);
    position_ = length_ / 2 + static_cast<int>(rng() % 3) - 1;
    observe(observation);
  }
  dvla::envs::StepResult step(const float* action, float* observation) override {
    position_ = std::max(0, position_ + (action[0] >= 0.5f ? 1 : -1));
    observe(observation);
    const bool goal = position_ >= length_ - 1;
    return {goal ? 1.f : -0.01f, goal, goal};
  }

 private:
  void observe(float* o) const {
    o[0] = static_cast<float>(position_) / static_cast<float>(length_);
    o[1] = position_ == 0 ? 1.f : 0.f;  // touching the left wall
  }
  int length_;
  int position_ = 0;
  dvla::envs::EnvSpec spec_;
};

// The stage: every step that does not end its episode earns `weight` times the progress it made
// (observation 0 is the position; the next step's observation shows where the step led).
dvla::actors::stage_actor::behavior_type progress_bonus(dvla::actors::stage_actor::pointer,
                                                        float weight,
                                                        std::shared_ptr<std::atomic<int>> shaped) {
  return {[=](const dvla::msg::SegmentFrame& frame) -> caf::result<dvla::msg::SegmentFrame> {
    auto segment = dvla::msg::read(frame);
    if (!segment)  // an error answer ends the run, naming this stage
      return dvla::actors::make_error(dvla::actors::errc::malformed_message,
                                      segment.error().message());
    const int64_t steps = segment->steps(), envs = segment->envs();
    const float* position = segment->observations.state.data;  // [steps, envs, 2]
    std::vector<float> rewards(segment->rewards.data,
                               segment->rewards.data + segment->rewards.numel());
    for (int64_t t = 0; t + 1 < steps; ++t)
      for (int64_t e = 0; e < envs; ++e) {
        const int64_t i = t * envs + e;
        if (segment->terminated.data[i] || segment->truncated.data[i]) continue;
        rewards[i] += weight * (position[(i + envs) * 2] - position[i * 2]);
      }
    segment->rewards.data = rewards.data();  // the changed field; the rest is the original
    ++*shaped;
    return dvla::msg::build(*segment);
  }};
}

// The observer: counts the versions the learner announces (it also gets every metrics report).
dvla::actors::observer_actor::behavior_type count_versions(
    dvla::actors::observer_actor::pointer, std::shared_ptr<std::atomic<int>> versions) {
  return {[versions](const dvla::msg::VersionFrame&) { ++*versions; },
          [](const dvla::msg::MetricsFrame&) {}};
}

}  // namespace

int main() {
  dvla::Config config;
  config.run.max_env_steps = 60'000;
  config.graph.samplers = 2;
  config.graph.envs_per_sampler = 8;

  // The default graph's shape (samplers, one inference pool, PPO, MLP actor-critic) with the
  // corridor as its env.
  auto parts = dvla::default_graph_parts(config);
  const int length = 12;
  auto make_corridor = [length] { return std::make_unique<Corridor>(length); };
  parts.env_spec = [length] { return Corridor(length).spec(); };
  parts.make_env = [make_corridor](uint32_t, size_t envs) {
    return std::make_unique<dvla::envs::EnvBatch>(make_corridor, envs);
  };
  auto graph = dvla::graph_of(config, parts);

  auto shaped = std::make_shared<std::atomic<int>>(0);
  dvla::add_stage(graph, "progress-bonus", [shaped](caf::actor_system& system) {
    return system.spawn(progress_bonus, 0.1f, shaped);
  });
  auto versions = std::make_shared<std::atomic<int>>(0);
  dvla::add_observer(graph, "versions", [versions](caf::actor_system& system) {
    return system.spawn(count_versions, versions);
  });

  auto result = dvla::train(config, graph, [](const dvla::RunStatus& s) {
    fmt::print("env steps {:>7} | mean return {:6.3f} | version {}\n", s.env_steps, s.mean_return,
               s.version);
  });
  if (!result) {
    fmt::print(stderr, "training failed: {}\n", result.error().message());
    return 1;
  }
  fmt::print("the stage shaped {} segments; the observer saw {} versions\n", shaped->load(),
             versions->load());
  auto eval = dvla::evaluate_weights(parts, config, result->weights);
  if (!eval) {
    fmt::print(stderr, "{}\n", eval.error().message());
    return 1;
  }
  fmt::print("evaluation: success rate {:.2f}, mean length {:.1f} steps (optimal: about {})\n",
             eval->success_rate, eval->mean_length, length / 2);
  return eval->success_rate > 0.9 && shaped->load() > 0 ? 0 : 1;
}
