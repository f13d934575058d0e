#include <dvla/runtime/learners/behaviour_cloning.hpp>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/optim/adam.h>

#include <cmath>
#include <string>

#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/policies/policy_input.hpp>
#include <dvla/runtime/trajectories/observation_check.hpp>

namespace dvla {
namespace {

// Random shifts of up to `pad` pixels per image (DrQ-style augmentation): with few
// demonstrations, the encoder must not learn where things are to the exact pixel.
at::Tensor shift_images(const at::Tensor& images, int64_t pad, at::Generator& generator) {
  const auto n = images.size(0), h = images.size(2), w = images.size(3);
  // [N, C, H, W, 3] -> padded [N, C, H + 2 pad, W + 2 pad, 3], edges repeated
  const auto padded =
      at::replication_pad2d(images.permute({0, 1, 4, 2, 3}).flatten(0, 1).to(at::kFloat),
                            {pad, pad, pad, pad})
          .view({n, images.size(1), 3, h + 2 * pad, w + 2 * pad});
  const auto offsets = at::randint(0, 2 * pad + 1, {n, 2}, generator, at::kLong);
  std::vector<at::Tensor> out;
  for (int64_t i = 0; i < n; ++i) {
    const auto dy = offsets[i][0].item<int64_t>(), dx = offsets[i][1].item<int64_t>();
    out.push_back(padded[i].narrow(2, dy, h).narrow(3, dx, w));
  }
  return at::stack(out).permute({0, 1, 3, 4, 2}).to(at::kByte).contiguous();
}

}  // namespace

Status check(const SftConfig& c) {
  if (c.epochs < 1 || c.epochs > 100000)
    return Error("epochs must be 1..100000, not " + std::to_string(c.epochs));
  if (c.minibatch_size < 1 || c.minibatch_size > 65536)
    return Error("minibatch must be 1..65536, not " + std::to_string(c.minibatch_size));
  if (!std::isfinite(c.learning_rate) || c.learning_rate <= 0 || c.learning_rate > 1)
    return Error("the learning rate must be a finite number in (0, 1], not " +
                 std::to_string(c.learning_rate));
  if (c.image_shift < 0 || c.image_shift > 16)
    return Error("image shift must be 0..16 pixels, not " + std::to_string(c.image_shift));
  return Status::ok();
}

Expected<SftReport> fit_demonstrations(Policy& policy, const envs::EnvSpec& spec,
                                       const DemonstrationSet& data, const SftConfig& config,
                                       const std::function<void(int, double)>& progress) {
  if (auto valid = check(config); !valid) return valid.error();
  SftReport report;
  std::vector<PolicyInput> inputs;
  std::vector<at::Tensor> actions;
  for (size_t i = 0; i < data.episodes.size(); ++i) {
    const auto& demo = data.episodes[i];
    if (config.successes_only && !demo.success) continue;
    if (auto m = observation_mismatch(demo.observations, 1, spec); !m.empty())
      return Error("demonstration " + std::to_string(i) + " (" + demo.task + "): " + m);
    if (demo.actions.dim(1) != spec.action.tensor_dim())
      return Error("demonstration " + std::to_string(i) + " has actions of size " +
                   std::to_string(demo.actions.dim(1)) + ", the policy " +
                   std::to_string(spec.action.tensor_dim()));
    inputs.push_back(policy_input(demo.observations, 1));
    actions.push_back(
        at::from_blob(const_cast<float*>(demo.actions.data), demo.actions.shape, at::kFloat));
    ++report.episodes;
  }
  if (inputs.empty()) return Error("no demonstration to learn from");
  const PolicyInput all = concatenate(inputs);
  const at::Tensor targets = at::cat(actions);
  report.samples = all.size();
  auto generator = at::make_generator<at::CPUGeneratorImpl>(config.seed);
  torch::optim::Adam adam(policy.parameters(), torch::optim::AdamOptions(config.learning_rate));
  const int64_t mb = std::min<int64_t>(config.minibatch_size, report.samples);
  for (int epoch = 0; epoch < config.epochs; ++epoch) {
    const auto order = at::randperm(report.samples, generator, at::kLong);
    double total = 0;
    int batches = 0;
    for (int64_t start = 0; start + mb <= report.samples; start += mb) {
      const auto rows = order.narrow(0, start, mb);
      auto input = all.index_select(rows);
      if (input.images.defined() && config.image_shift > 0)
        input.images = shift_images(input.images, config.image_shift, generator);
      const auto nll = -policy.evaluate(input, targets.index_select(0, rows)).log_probs.mean();
      adam.zero_grad();
      nll.backward();
      adam.step();
      total += nll.item<double>();
      ++batches;
    }
    report.epoch_loss.push_back(total / std::max(batches, 1));
    if (progress) progress(epoch, report.epoch_loss.back());
  }
  return report;
}

}  // namespace dvla
