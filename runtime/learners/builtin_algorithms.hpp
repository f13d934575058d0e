#pragma once
// dvla's two learner algorithms (runtime/learners/learner_algorithm.hpp):
//   ppo   GAE advantages from the behaviour critic over continuous segments
//         (ppo.gamma, ppo.gae_lambda); the truncated steps' last observations are valued by the
//         learner's critic.
//   grpo  episodic groups of grpo.group_size envs from one initial state; each episode's score
//         (grpo.reward) against its group's, no critic (runtime/learners/grpo.hpp).
#include <memory>

#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/learners/learner_algorithm.hpp>

namespace dvla {

std::unique_ptr<LearnerAlgorithm> make_ppo_algorithm(const Config& config);
std::unique_ptr<LearnerAlgorithm> make_grpo_algorithm(const Config& config);

}  // namespace dvla
