#pragma once
// PPO: the clipped surrogate objective, a value loss, an entropy bonus, and epochs of shuffled
// minibatches with Adam and gradient clipping. Policy lag (async) is corrected with the decoupled
// objective (Hilton et al. 2021, "Batch size-invariance for policy optimization"): the ratio is
// clipped around the proximal policy (the learner's at the start of the update, or with
// ppo.proximal_policy=first_visit where the first epoch reaches the sample), and each sample is
// weighted by proximal / behaviour probability. Without lag both are the behaviour policy: PPO.
#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <memory>
#include <string>

#include <dvla/core/expected.hpp>
#include <dvla/runtime/config/ppo_config.hpp>
#include <dvla/runtime/learners/training_batch.hpp>
#include <dvla/runtime/policies/policy.hpp>

namespace dvla {

class FlatAdam;

struct PpoLoss {
  at::Tensor total;          // what is minimised
  at::Tensor policy;         // -min(r A, clip(r) A), averaged
  at::Tensor value;          // 0.5 (V - R)^2, averaged
  at::Tensor entropy;        // mean entropy
  at::Tensor reference_kl;   // KL to the reference policy (k3 estimate); undefined without one
  double approx_kl = 0;      // mean (r - 1) - log r (r: against the proximal policy)
  double clip_fraction = 0;  // share of samples whose ratio was clipped
};

// The loss of one minibatch given the current policy's evaluation of it. With
// `reference_log_probs` (the starting policy's, of the same actions) and config.kl_coef > 0, it
// adds kl_coef * KL(now || reference), estimated per sample as exp(d) - d - 1 with
// d = reference - now (unbiased, never negative). With `proximal_log_probs` the ratio is
// now / proximal and each sample's surrogate is weighted by proximal / behaviour (decoupled PPO).
// With `sample_values` (the values the samples carry) and config.value_clip > 0, the value loss is
// max((V - R)^2, (V_clipped - R)^2) / 2, V_clipped kept within value_clip of the sample's value.
PpoLoss ppo_loss(const PolicyEvaluation& now, const at::Tensor& behaviour_log_probs,
                 const at::Tensor& advantages, const at::Tensor& returns, const PpoConfig& config,
                 const at::Tensor& reference_log_probs = {},
                 const at::Tensor& proximal_log_probs = {}, const at::Tensor& sample_values = {});

struct PpoStats {
  double policy_loss = 0, value_loss = 0, entropy = 0, approx_kl = 0, clip_fraction = 0,
         reference_kl = 0;
  double learning_rate = 0;  // of the update (at its end, with ppo.adaptive_kl)
  // The stale samples' importance weights proximal / behaviour (1 for samples of the learner's
  // own version): the largest, and the effective sample size (sum w)^2 / (n sum w^2) as a share
  // of the batch (1: the weights cost nothing; small: a few samples carry the update).
  double importance_weight_max = 1, importance_weight_ess = 1;
  int64_t samples = 0;
  int gradient_steps = 0;
};

// Updates run all at once (update) or one gradient step at a time (begin, then step until it
// returns false), so that an actor can answer messages between the steps of a long update.
class PpoLearner {
 public:
  PpoLearner(Policy& policy, const PpoConfig& config, uint64_t seed);
  ~PpoLearner();
  // The rate of the updates that begin from now on (config.learning_rate until set); with
  // ppo.adaptive_kl the optimizer runs at this times learning_rate_factor().
  void set_learning_rate(double rate);
  // ppo.adaptive_kl's multiplier of the set rate (1 without it); kept in checkpoints.
  double learning_rate_factor() const { return rate_factor_; }
  void set_learning_rate_factor(double factor);
  PpoStats update(TrainingBatch batch);
  void begin(TrainingBatch batch);
  // One minibatch gradient step of the current update; false once the update is complete.
  bool step();
  bool updating() const { return updating_; }
  // The statistics of the last (or current) update.
  PpoStats stats() const;
  FlatAdam& optimizer() { return *optimizer_; }
  // The minibatch shuffler's state as hex text, for checkpoints; and back.
  std::string rng_state() const;
  Status set_rng_state(const std::string& hex);

 private:
  // The rows of samples older than the learner's version.
  at::Tensor lagging_rows() const;
  // Which of the batch's `rows` are of samples older than the learner's version (bool).
  at::Tensor lagging_at(const at::Tensor& rows) const;
  // The batch's behaviour log-probabilities, with the learner's (no gradient) at the rows
  // `lagging`: a forward pass over those rows only.
  at::Tensor proximal_log_probs(const at::Tensor& lagging);
  // ppo.proximal_policy=first_visit: the first epoch's evaluation of rows `idx` gives the
  // lagging ones their proximal log-probabilities.
  void record_first_visit(const at::Tensor& idx, const at::Tensor& log_probs);
  // At the first epoch's end: a pass over the lagging rows it did not reach (`unvisited`, when
  // another epoch follows), then the importance-weight statistics.
  void complete_first_visits(const at::Tensor& unvisited);
  // Fills the importance-weight statistics of the update in progress.
  void measure_importance_weights();
  // ppo.adaptive_kl: the multiplier follows a gradient step's approximate KL.
  void adapt_learning_rate(double approx_kl);
  // The optimizer's rate: the set one times the multiplier.
  void apply_learning_rate();
  // Ends the update in progress: the policy's statistics take the batch, which is released.
  void finish();

  Policy& policy_;
  PpoConfig config_;  // config_.learning_rate: the rate of the next update
  double rate_factor_ = 1;  // ppo.adaptive_kl's multiplier of config_.learning_rate
  std::unique_ptr<FlatAdam> optimizer_;
  at::Generator generator_;  // minibatch shuffling
  at::Device device_;        // the policy's: where minibatches are moved
  // The update in progress: its batch, the epoch's sample order and where in it the next
  // minibatch starts.
  TrainingBatch batch_;
  at::Tensor order_;
  int epoch_ = 0;
  int64_t next_ = 0;
  bool updating_ = false;
  at::Tensor proximal_log_probs_;  // of the batch, when some samples lag; else undefined
  bool proximal_pending_ = false;  // first_visit: the first epoch is still filling them in
  PpoStats sums_;
};

}  // namespace dvla
