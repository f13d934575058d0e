// Demonstrations, supervised fine-tuning and checkpoints.
#include "doctest_with_torch.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/optim/adam.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <dvla/envs/tabletop/tabletop_batch.hpp>
#include <dvla/runtime/checkpoints/checkpoint.hpp>
#include <dvla/runtime/datasets/demonstration_file.hpp>
#include <dvla/runtime/datasets/demonstration_recorder.hpp>
#include <dvla/runtime/learners/behaviour_cloning.hpp>
#include <dvla/runtime/learners/flat_adam.hpp>
#include <dvla/runtime/learners/optimizer_state.hpp>
#include <dvla/runtime/learners/ppo.hpp>
#include <dvla/runtime/policies/policy_input.hpp>
#include <dvla/runtime/policies/vla_policy.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>
#include <dvla/runtime/weights/initial_weights.hpp>

using namespace dvla;
namespace fs = std::filesystem;

namespace {

envs::tabletop::TabletopConfig small_cameras() {
  envs::tabletop::TabletopConfig c;
  c.suite = "lift";
  c.image_size = 16;
  c.threads = 1;
  return c;
}

// Three scripted lift episodes (one per training task), recorded once for the whole file.
const std::string& dataset() {
  static const std::string path = [] {
    const std::string p = "test_sft_demos.dvla";
    auto r = record_scripted_demonstrations(small_cameras(), {1, 7, true, 0.0}, p);
    REQUIRE_MESSAGE(r, r.error().message());
    return p;
  }();
  return path;
}

}  // namespace

TEST_CASE("a recorded dataset reads back intact, and damage is named") {
  auto set = read_demonstrations(dataset());
  REQUIRE_MESSAGE(set, set.error().message());
  CHECK(set->header.env == "tabletop");
  CHECK(set->header.suite == "lift");
  CHECK(set->header.image_size == 16);
  REQUIRE(set->episodes.size() == 3);
  for (const auto& d : set->episodes) {
    CHECK(d.success);
    CHECK(d.task.rfind("lift/", 0) == 0);
    CHECK(d.observations.images.shape == std::vector<int64_t>{d.steps(), 2, 16, 16, 3});
    CHECK(d.observations.instructions.shape == std::vector<int64_t>{d.steps(), 12});
    CHECK(d.actions.shape == std::vector<int64_t>{d.steps(), 7});
  }
  std::ifstream in(dataset(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string damaged = "test_sft_damaged.dvla";
  auto read_back = [&](const std::string& content) {
    std::ofstream(damaged, std::ios::binary | std::ios::trunc) << content;
    auto r = read_demonstrations(damaged);
    return r ? std::string("(it read)") : r.error().message();
  };
  // Cut at any byte, message boundaries included (the file then ends with an episode), it is
  // refused naming the file: never fewer episodes without a word.
  std::vector<size_t> cuts = {0, 1, 8, bytes.size() - 8, bytes.size() - 1};
  for (size_t at = 7; at < bytes.size(); at += bytes.size() / 61) cuts.push_back(at);
  // The message boundaries: before the footer, and before each episode counted from the end.
  size_t boundary = bytes.size() - msg::build(msg::DatasetFooter{}).size();
  cuts.push_back(boundary);
  for (auto f = set->frames.rbegin(); f != set->frames.rend(); ++f)
    cuts.push_back(boundary -= f->size());
  for (size_t at : cuts) {
    CAPTURE(at);
    const auto error = read_back(bytes.substr(0, at));
    CHECK_MESSAGE(error.find("dataset 'test_sft_damaged.dvla'") == 0, error);
  }
  // A byte changed anywhere.
  for (size_t at : {size_t{40}, bytes.size() / 2, bytes.size() - 40}) {
    CAPTURE(at);
    std::string changed = bytes;
    changed[at] = static_cast<char>(changed[at] ^ 0x10);
    const auto error = read_back(changed);
    CHECK_MESSAGE(error.find("dataset 'test_sft_damaged.dvla'") == 0, error);
  }
  std::string flipped = bytes;
  flipped[bytes.size() / 2] = static_cast<char>(flipped[bytes.size() / 2] ^ 0x10);
  CHECK(read_back(flipped).find("is damaged: its bytes do not match the checksum") !=
        std::string::npos);
  auto missing = read_demonstrations("no/such.dvla");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message() == "cannot read dataset 'no/such.dvla'");
}

namespace {

// Replays a demonstration's recorded actions from its initial state and returns the largest
// difference between the proprioception seen then and the one recorded.
float replay_drift(const msg::Demonstration& d) {
  envs::tabletop::TabletopBatch batch(small_cameras(), 1);
  const auto task = envs::tabletop::parse_task(d.task);
  REQUIRE_MESSAGE(task, task.error().message());
  batch.reset_to({{*task, d.layout_seed}});
  const auto width = static_cast<size_t>(d.observations.state.shape[1]);
  float drift = 0;
  for (int64_t t = 0; t < d.steps(); ++t) {
    const float* recorded = d.observations.state.data + t * width;
    for (size_t k = 0; k < width; ++k)
      drift = std::max(drift, std::abs(batch.output().observations[k] - recorded[k]));
    batch.step(d.actions.data + t * envs::tabletop::action_size);
  }
  return drift;
}

}  // namespace

TEST_CASE("SFT settings out of bounds are refused by name before anything trains") {
  SftConfig c;
  CHECK(check(c));
  c.learning_rate = std::nan("");
  CHECK(check(c).error().message().find("the learning rate must be a finite number") == 0);
  c = SftConfig{};
  c.minibatch_size = 0;
  CHECK(check(c).error().message() == "minibatch must be 1..65536, not 0");
  c = SftConfig{};
  c.epochs = -3;
  CHECK(check(c).error().message() == "epochs must be 1..100000, not -3");
  c = SftConfig{};
  c.image_shift = -1;
  CHECK(check(c).error().message() == "image shift must be 0..16 pixels, not -1");
}

TEST_CASE("noisy recording executes perturbed actions and keeps the expert's") {
  // Without noise the recorded actions are the executed ones: a replay retraces the episode.
  auto clean = read_demonstrations(dataset());
  REQUIRE(clean);
  for (const auto& d : clean->episodes) CHECK(replay_drift(d) == 0.f);
  // With noise the env executed something else than the file holds: the replay drifts away.
  const std::string path = "test_sft_noisy.dvla";
  auto r = record_scripted_demonstrations(small_cameras(), {1, 7, false, 0.3}, path);
  REQUIRE_MESSAGE(r, r.error().message());
  auto noisy = read_demonstrations(path);
  REQUIRE(noisy);
  REQUIRE(noisy->episodes.size() == 3);
  for (const auto& d : noisy->episodes) CHECK(replay_drift(d) > 1e-3f);
  // Only successes wanted: spoiled episodes are replaced by further starts of their task, so
  // every task still gets its demonstrations.
  auto replaced = record_scripted_demonstrations(small_cameras(), {2, 7, true, 0.7}, path);
  REQUIRE_MESSAGE(replaced, replaced.error().message());
  CHECK(replaced->successes == 6);
  CHECK(replaced->episodes > 6);
  auto kept = read_demonstrations(path);
  REQUIRE(kept);
  std::map<std::string, int> per_task;
  for (const auto& d : kept->episodes) per_task[d.task] += d.success ? 1 : 0;
  CHECK(per_task ==
        std::map<std::string, int>{{"lift/blue", 2}, {"lift/green", 2}, {"lift/red", 2}});
  for (double bad : {-0.1, 1.5}) {
    auto refused = record_scripted_demonstrations(small_cameras(), {1, 7, true, bad}, path);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message().find("action noise must be in [0, 1]") == 0);
  }
}

TEST_CASE("SFT lowers the loss and the fitted policy reproduces the demonstrated actions") {
  auto set = read_demonstrations(dataset());
  REQUIRE(set);
  const auto spec = envs::tabletop::env_spec(small_cameras());
  VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 3);
  SftConfig c;
  c.epochs = 150;
  c.minibatch_size = 32;
  c.learning_rate = 3e-3;
  c.image_shift = 0;  // memorise exactly
  auto report = fit_demonstrations(policy, spec, *set, c);
  REQUIRE_MESSAGE(report, report.error().message());
  CHECK(report->episodes == 3);
  CHECK(report->epoch_loss.back() < report->epoch_loss.front() - 3.0);
  // Deterministic actions on the demonstrations' own observations match what the expert did
  // (roll and pitch are always 0; the grip is +-1).
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
  double error = 0;
  int64_t count = 0;
  for (const auto& d : set->episodes) {
    const auto acted = policy.act(policy_input(d.observations, 1), true, gen).actions;
    const auto wanted =
        at::from_blob(const_cast<float*>(d.actions.data), d.actions.shape, at::kFloat);
    error += (acted - wanted).abs().sum().item<double>();
    count += wanted.numel();
  }
  MESSAGE("mean absolute action error after SFT: ", error / count);
  CHECK(error / count < 0.15);
}

TEST_CASE("demonstrations that do not fit the policy are refused by name") {
  auto set = read_demonstrations(dataset());
  REQUIRE(set);
  auto other = small_cameras();
  other.image_size = 32;
  const auto spec = envs::tabletop::env_spec(other);
  VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 3);
  auto report = fit_demonstrations(policy, spec, *set, SftConfig{});
  REQUIRE_FALSE(report);
  CHECK(report.error().message().find("demonstration 0 (lift/") == 0);
  CHECK(report.error().message().find("images of shape [2,16,16,3]") != std::string::npos);
}

TEST_CASE("a checkpoint restores identical outputs, optimizer state and counters") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
  FlatParameters flat(policy);
  torch::optim::Adam adam(policy.parameters(), torch::optim::AdamOptions(1e-3));
  PolicyInput input{at::randn({4, 10}), at::randint(0, 255, {4, 2, 16, 16, 3}, at::kByte),
                    at::randint(1, 19, {4, 12}, at::kLong)};
  for (int i = 0; i < 3; ++i) {  // some optimizer state to keep
    adam.zero_grad();
    policy.evaluate(input, at::zeros({4, 7})).log_probs.mean().backward();
    adam.step();
  }
  Config config;
  config.env.name = "tabletop";
  config.env.tabletop = small_cameras();
  config.model.preset = VlaPreset::tiny;
  CheckpointState state;
  state.version = 42;
  state.env_steps = 123456;
  state.eval_success = 0.5;
  state.learning_rate_factor = 0.25;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(9);
  const auto rng = generator.get_state();
  state.rng_state = to_hex(rng.data_ptr(), static_cast<size_t>(rng.numel()));
  const std::string dir = "test_sft_checkpoint";
  fs::remove_all(dir);
  REQUIRE(save_checkpoint(dir, config, flat.to_frame(42), state,
                          [&] { return optimizer_bytes(adam); }));
  auto loaded = load_checkpoint(dir);
  REQUIRE_MESSAGE(loaded, loaded.error().message());
  CHECK(loaded->state.version == 42);
  CHECK(loaded->state.env_steps == 123456);
  CHECK(loaded->state.eval_success == 0.5);
  CHECK(loaded->state.learning_rate_factor == 0.25);
  CHECK(loaded->state.rng_state == state.rng_state);
  auto bytes = from_hex(loaded->state.rng_state);
  REQUIRE(bytes);
  CHECK(std::equal(bytes->begin(), bytes->end(), static_cast<const uint8_t*>(rng.data_ptr())));
  CHECK_FALSE(from_hex("0g"));
  CHECK(dump_config(loaded->config) == dump_config(config));

  VlaPolicy restored(spec, vla_size(VlaPreset::tiny), 99);
  FlatParameters restored_flat(restored);
  REQUIRE(restored_flat.load(*msg::read(loaded->weights)));
  auto g1 = at::make_generator<at::CPUGeneratorImpl>(1),
       g2 = at::make_generator<at::CPUGeneratorImpl>(1);
  CHECK(at::equal(policy.act(input, true, g1).actions, restored.act(input, true, g2).actions));
  torch::optim::Adam restored_adam(restored.parameters(), torch::optim::AdamOptions(1e-3));
  REQUIRE(load_optimizer(restored_adam, loaded->optimizer_path));
  const auto& before = static_cast<torch::optim::AdamParamState&>(
      *adam.state().at(c10::guts::to_string(policy.parameters()[0].unsafeGetTensorImpl())));
  const auto& after = static_cast<torch::optim::AdamParamState&>(*restored_adam.state().at(
      c10::guts::to_string(restored.parameters()[0].unsafeGetTensorImpl())));
  CHECK(before.step() == after.step());
  CHECK(at::equal(before.exp_avg(), after.exp_avg()));
  CHECK(at::equal(before.exp_avg_sq(), after.exp_avg_sq()));
}

TEST_CASE("the checkpoint store keeps the last N and the best, and names the latest") {
  const std::string logdir = "test_sft_store";
  fs::remove_all(logdir);
  const auto spec = envs::tabletop::env_spec(small_cameras());
  VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
  FlatParameters flat(policy);
  Config config;
  CheckpointStore store(logdir, 2);
  const double success[] = {0.1, 0.7, 0.3, 0.2, 0.4};
  for (uint64_t v = 1; v <= 5; ++v) {
    CheckpointState s;
    s.version = v;
    s.eval_success = success[v - 1];
    REQUIRE(store.save(config, flat.to_frame(v), s));
  }
  std::vector<std::string> kept;
  for (const auto& e : fs::directory_iterator(logdir + "/checkpoints"))
    if (e.is_directory()) kept.push_back(e.path().filename().string());
  std::sort(kept.begin(), kept.end());
  CHECK(kept == std::vector<std::string>{"v00000002", "v00000004", "v00000005"});
  CHECK(CheckpointStore::latest(logdir).value() == logdir + "/checkpoints/v00000005");
  CHECK(CheckpointStore::best(logdir).value() == logdir + "/checkpoints/v00000002");
  CHECK_FALSE(CheckpointStore::latest("no/such/run"));
  auto broken = load_checkpoint(logdir + "/checkpoints/nothing");
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message().find("is not a directory") != std::string::npos);
}

TEST_CASE("an evaluation recorded later can make a checkpoint the best; --init reads it") {
  const std::string logdir = "test_sft_record";
  fs::remove_all(logdir);
  const auto spec = envs::tabletop::env_spec(small_cameras());
  VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
  FlatParameters flat(policy);
  Config config;
  CheckpointStore store(logdir, 3);
  std::vector<std::string> dirs;
  for (uint64_t v = 1; v <= 3; ++v) {
    CheckpointState s;
    s.version = v;
    auto dir = store.save(config, flat.to_frame(v), s);
    REQUIRE(dir);
    dirs.push_back(*dir);
  }
  CHECK_FALSE(CheckpointStore::best(logdir));  // nothing evaluated yet
  REQUIRE(store.record_evaluation(dirs[1], 0.6, 3.0));
  REQUIRE(store.record_evaluation(dirs[2], 0.6, 2.0));  // a tie on success: the return decides
  CHECK(CheckpointStore::best(logdir).value() == dirs[1]);
  CHECK(load_checkpoint(dirs[1]).value().state.eval_success == 0.6);
  CHECK(store.record_evaluation(logdir + "/checkpoints/v00000099", 1.0, 1.0));  // pruned: no-op
  CHECK(CheckpointStore::best(logdir).value() == dirs[1]);

  // model.init accepts the run directory (its best checkpoint) and loads those weights.
  CHECK(resolve_checkpoint(logdir).value() == dirs[1]);
  auto weights = load_initial_weights(logdir);
  REQUIRE_MESSAGE(weights, weights.error().message());
  VlaPolicy other(spec, vla_size(VlaPreset::tiny), 77);
  REQUIRE(load_into(other, *weights));
  CHECK(at::equal(FlatParameters(other).flat(), flat.flat()));
  auto missing = load_initial_weights("no/such/checkpoint");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().find("no/such/checkpoint") != std::string::npos);
  VlaPolicy wider(spec, vla_size(VlaPreset::small), 5);
  auto misfit = load_into(wider, *weights);
  REQUIRE_FALSE(misfit);
  CHECK(misfit.error().message().find("does not fit this policy") != std::string::npos);
}

TEST_CASE("the learner's shuffling state survives a checkpoint") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
  PpoLearner a(policy, PpoConfig{}, 3), b(policy, PpoConfig{}, 4);
  CHECK(a.rng_state() != b.rng_state());
  REQUIRE(b.set_rng_state(a.rng_state()));
  CHECK(a.rng_state() == b.rng_state());
  CHECK_FALSE(b.set_rng_state("00ff"));
  CHECK_FALSE(b.set_rng_state("not hex"));
}

// A batch of `policy`'s own actions on `input`, as if an acting policy `lag` versions behind had
// given them e^-0.5 of the probability.
TrainingBatch acted_batch(VlaPolicy& policy, const PolicyInput& input, uint64_t lag) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(3);
  const auto acted = policy.act(input, false, g);
  const int64_t n = input.size();
  TrainingBatch b;
  b.inputs = input;
  b.actions = acted.actions;
  b.log_probs = acted.log_probs - 0.5;
  b.values = at::zeros({n});
  b.advantages = at::randn({n});
  b.returns = at::zeros({n});
  b.policy_lag.add(lag, n);
  return b;
}

PolicyInput six_tabletop_inputs() {
  return {at::randn({6, 10}), at::randint(0, 255, {6, 2, 16, 16, 3}, at::kByte),
          at::randint(1, 12, {6, 12}, at::kLong)};
}

// One gradient step over the six rows: its statistics are those of the starting policy.
PpoConfig one_step_over_six() {
  PpoConfig c;
  c.epochs = 1;
  c.minibatch_size = 6;
  return c;
}

TEST_CASE("lagging samples are clipped around the learner's policy, not the one that acted") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  const auto input = six_tabletop_inputs();
  const auto c = one_step_over_six();
  auto first_step = [&](uint64_t lag) {
    VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
    return PpoLearner(policy, c, 1).update(acted_batch(policy, input, lag));
  };
  // Fresh samples: the ratio to the behaviour policy is e^0.5, outside the clip range for all.
  const auto fresh = first_step(0);
  CHECK(fresh.clip_fraction == doctest::Approx(1.0));
  CHECK(fresh.approx_kl == doctest::Approx(std::exp(0.5) - 1 - 0.5).epsilon(1e-3));
  // One version behind: the ratio is to the learner's own policy (1), the lag is a weight.
  const auto lagging = first_step(1);
  CHECK(lagging.clip_fraction == doctest::Approx(0.0));
  CHECK(lagging.approx_kl == doctest::Approx(0.0).epsilon(1e-4));
}

TEST_CASE("an update reports its lagging samples' importance weights") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  const auto input = six_tabletop_inputs();
  VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
  const auto c = one_step_over_six();
  // Fresh samples have no proximal policy: the weights are all 1.
  const auto fresh = PpoLearner(policy, c, 1).update(acted_batch(policy, input, 0));
  CHECK(fresh.importance_weight_max == 1.0);
  CHECK(fresh.importance_weight_ess == 1.0);
  // Behaviour probabilities 1 and 1/2 of the learner's, three rows each: weights 1 and 2, so
  // the largest is 2 and the effective sample size (1+1+1+2+2+2)^2 / (6 (1+1+1+4+4+4)) = 0.9.
  auto batch = acted_batch(policy, input, 1);
  batch.log_probs = batch.log_probs + 0.5 -
                    at::tensor({0.f, 0.f, 0.f, 1.f, 1.f, 1.f}) * static_cast<float>(std::log(2.0));
  const auto lagging = PpoLearner(policy, c, 1).update(std::move(batch));
  CHECK(lagging.importance_weight_max == doctest::Approx(2.0).epsilon(1e-4));
  CHECK(lagging.importance_weight_ess == doctest::Approx(0.9).epsilon(1e-4));
}

TEST_CASE("a learner's own samples in a lagging batch keep their behaviour log-probabilities") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  const auto input = six_tabletop_inputs();
  VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
  auto c = one_step_over_six();
  // One minibatch: both sources of the proximal policy read the starting policy.
  for (auto proximal : {ProximalPolicy::update_start, ProximalPolicy::first_visit}) {
    CAPTURE(std::string(to_text(proximal)));
    c.proximal_policy = proximal;
    // Every row acted with e^-0.5 of the learner's probability; rows 0-2 are of the learner's
    // version, rows 3-5 one behind.
    auto batch = acted_batch(policy, input, 0);
    batch.policy_lag = PolicyLagCounts{};
    batch.policy_lag.add(0, 3);
    batch.policy_lag.add(1, 3);
    batch.sample_lags = at::tensor(std::vector<int64_t>{0, 0, 0, 1, 1, 1}, at::kLong);
    const auto s = PpoLearner(policy, c, 1).update(std::move(batch));
    // Rows 0-2 are clipped around their own behaviour log-probabilities (ratio e^0.5), rows 3-5
    // around the learner's (ratio 1).
    CHECK(s.clip_fraction == doctest::Approx(0.5));
    // Weights 1 (rows 0-2) and e^0.5 (rows 3-5): ESS (3 + 3 e^0.5)^2 / (6 (3 + 3 e)).
    const double w = std::exp(0.5);
    CHECK(s.importance_weight_max == doctest::Approx(w).epsilon(1e-4));
    CHECK(s.importance_weight_ess ==
          doctest::Approx(std::pow(1 + w, 2) / (2 * (1 + std::exp(1.0)))).epsilon(1e-4));
  }
}

// A policy that counts the rows it evaluates for the learner, around another one.
class EvaluationCounter final : public Policy {
 public:
  explicit EvaluationCounter(std::shared_ptr<Policy> inner)
      : inner_(register_module("inner", std::move(inner))) {}
  PolicyActions act(const PolicyInput& input, bool deterministic, at::Generator& g) override {
    return inner_->act(input, deterministic, g);
  }
  PolicyEvaluation evaluate(const PolicyInput& input, const torch::Tensor& actions) override {
    rows += input.size();
    return inner_->evaluate(input, actions);
  }
  torch::Tensor value(const PolicyInput& input) override { return inner_->value(input); }
  int64_t rows = 0;

 private:
  std::shared_ptr<Policy> inner_;
};

TEST_CASE("ppo.proximal_policy=first_visit anchors lagging samples without a forward pass") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  struct Update {
    PpoStats stats;
    int64_t rows_evaluated;
  };
  // Seven rows one version behind, acted with e^-0.5 of the learner's probability; minibatches
  // of 3 (the first epoch leaves one row out).
  auto update = [&](ProximalPolicy proximal, int epochs) {
    auto vla = std::make_shared<VlaPolicy>(spec, vla_size(VlaPreset::tiny), 5);
    EvaluationCounter policy(vla);
    const PolicyInput input{at::randn({7, 10}), at::randint(0, 255, {7, 2, 16, 16, 3}, at::kByte),
                            at::randint(1, 12, {7, 12}, at::kLong)};
    auto batch = acted_batch(*vla, input, 1);
    PpoConfig c;
    c.proximal_policy = proximal;
    c.epochs = epochs;
    c.minibatch_size = 3;
    c.learning_rate = 1e-2;
    const auto stats = PpoLearner(policy, c, 1).update(std::move(batch));
    return Update{stats, policy.rows};
  };
  SUBCASE("update_start: a pass over the 7 rows first; the second step's ratio is off 1") {
    const auto one = update(ProximalPolicy::update_start, 1);
    CHECK(one.rows_evaluated == 7 + 2 * 3);
    CHECK(one.stats.approx_kl > 1e-6);
    CHECK(one.stats.importance_weight_max > 1.2);  // e^0.5 where the starting policy acts
    CHECK(update(ProximalPolicy::update_start, 2).rows_evaluated == 7 + 4 * 3);
  }
  SUBCASE("first_visit: each step's ratio starts at 1; only the left-out row needs a pass") {
    const auto one = update(ProximalPolicy::first_visit, 1);
    CHECK(one.rows_evaluated == 2 * 3);  // no later epoch: the left-out row is not needed
    CHECK(one.stats.approx_kl == doctest::Approx(0.0).epsilon(1e-6));
    CHECK(one.stats.clip_fraction == 0.0);
    CHECK(one.stats.importance_weight_max > 1.2);
    const auto two = update(ProximalPolicy::first_visit, 2);
    CHECK(two.rows_evaluated == 4 * 3 + 1);
    CHECK(two.stats.approx_kl > 1e-6);  // the second epoch has moved on from the first
  }
}

TEST_CASE("a learning rate set on the learner is the rate of its next update") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  const auto input = six_tabletop_inputs();
  PpoConfig c;
  c.learning_rate = 1e-3;
  c.epochs = 1;
  c.minibatch_size = 6;
  // Adam's first step moves each parameter by lr * g / (|g| + eps): at most lr, and nearly lr
  // for the parameters with the largest gradients.
  auto largest_move = [&](std::optional<double> rate) {
    VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
    FlatParameters flat(policy);
    const auto before = flat.flat().clone();
    PpoLearner learner(policy, c, 1);
    if (rate) learner.set_learning_rate(*rate);
    const auto stats = learner.update(acted_batch(policy, input, 0));
    CHECK(stats.learning_rate == doctest::Approx(rate.value_or(c.learning_rate)));
    return (flat.flat() - before).abs().max().item<double>();
  };
  const double configured = largest_move(std::nullopt), set = largest_move(2e-5);
  CHECK(configured <= 1e-3 * 1.01);  // 1%: float rounding of the parameters
  CHECK(configured > 1e-3 * 0.9);
  CHECK(set <= 2e-5 * 1.01);
  CHECK(set > 2e-5 * 0.9);
}

TEST_CASE("with ppo.target_kl an update ends before the minibatch that strays past 1.5x it") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  const auto input = six_tabletop_inputs();
  // One version behind: the first minibatch is clipped around the learner's own policy (KL 0),
  // and every step after the first moves the policy away from it (with update_start; with
  // first_visit each minibatch of the first epoch is anchored where it is first evaluated).
  auto steps_taken = [&](double target_kl, ProximalPolicy proximal = ProximalPolicy::update_start) {
    VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
    FlatParameters flat(policy);
    const auto before = flat.flat().clone();
    PpoConfig c;
    c.proximal_policy = proximal;
    c.target_kl = target_kl;
    c.learning_rate = 1e-2;
    c.epochs = 4;
    c.minibatch_size = 3;  // 2 minibatches an epoch: 8 gradient steps in all
    PpoLearner learner(policy, c, 1);
    const auto stats = learner.update(acted_batch(policy, input, 1));
    CHECK_FALSE(learner.updating());
    CHECK((flat.flat() - before).abs().max().item<double>() > 0);  // the first step was taken
    return stats.gradient_steps;
  };
  CHECK(steps_taken(0) == 8);     // off: every epoch
  CHECK(steps_taken(1e6) == 8);   // never reached
  CHECK(steps_taken(1e-9) == 1);  // the second minibatch already strays past it
  CHECK(steps_taken(1e-9, ProximalPolicy::first_visit) == 2);  // the second epoch's first does
}

TEST_CASE("with ppo.adaptive_kl the learning rate follows each step's approximate KL") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  const auto input = six_tabletop_inputs();
  // One version behind (update_start): each step after the first moves the policy away from the
  // samples' anchor, so its approximate KL is above 0.
  auto update = [&](double adaptive_kl, double factor = 1) {
    VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
    PpoConfig c;
    c.proximal_policy = ProximalPolicy::update_start;
    c.adaptive_kl = adaptive_kl;
    c.learning_rate = 1e-2;
    c.epochs = 4;
    c.minibatch_size = 3;  // 8 gradient steps
    PpoLearner learner(policy, c, 1);
    learner.set_learning_rate_factor(factor);
    const auto stats = learner.update(acted_batch(policy, input, 1));
    CHECK(learner.optimizer().learning_rate() == doctest::Approx(stats.learning_rate));
    CHECK(stats.learning_rate == doctest::Approx(1e-2 * learner.learning_rate_factor()));
    return learner.learning_rate_factor();
  };
  CHECK(update(0) == 1.0);     // off: the set rate
  CHECK(update(0, 3) == 3.0);  // a factor from a checkpoint holds without adaptation
  // Every step past the first moves far beyond 2 x 1e-12: 7 divisions by 1.5 (the first step,
  // KL 0 or a rounding's worth, divides, multiplies or keeps it).
  const double slowed = update(1e-12);
  CHECK(slowed <= std::pow(1.5, -6) * 1.0001);
  CHECK(slowed >= std::pow(1.5, -8) * 0.9999);
  CHECK(update(1e3) == 10.0);           // far below half of it: up by 1.5 a step, to the cap of 10
  CHECK(update(1e-12, 0.011) == 0.01);  // and down to the floor of 0.01
}

TEST_CASE("the VLA's evaluate() gives back the log-probabilities act() sampled with") {
  const auto spec = envs::tabletop::env_spec(small_cameras());
  VlaPolicy policy(spec, vla_size(VlaPreset::tiny), 5);
  PolicyInput input{at::randn({6, 10}), at::randint(0, 255, {6, 2, 16, 16, 3}, at::kByte),
                    at::randint(1, 12, {6, 12}, at::kLong)};
  auto g = at::make_generator<at::CPUGeneratorImpl>(3);
  const auto acted = policy.act(input, false, g);
  const auto evaluated = policy.evaluate(input, acted.actions);
  CHECK(at::allclose(evaluated.log_probs.detach(), acted.log_probs, 1e-4, 1e-4));
  CHECK(at::allclose(evaluated.values.detach(), acted.values, 1e-4, 1e-4));
  // In a batch of other rows, each row's result stays its own (no cross-row mixing).
  const auto rows = at::tensor({4, 1}, at::kLong);
  const auto part = policy.evaluate(input.index_select(rows), acted.actions.index_select(0, rows));
  CHECK(at::allclose(part.log_probs.detach(), acted.log_probs.index_select(0, rows), 1e-4, 1e-4));
}
