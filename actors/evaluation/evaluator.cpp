#include <dvla/actors/evaluation/evaluator.hpp>

#include <caf/all.hpp>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/weight_update.hpp>
#include <dvla/runtime/evaluation/evaluation.hpp>
#include <dvla/runtime/evaluation/evaluation_metrics.hpp>
#include <dvla/runtime/policies/intra_op_threads.hpp>
#include <dvla/runtime/policies/policy.hpp>
#include <dvla/runtime/weights/flat_parameters.hpp>

namespace dvla::actors {
namespace {

struct EvaluatorState {
  EvaluatorSetup setup;
  std::unique_ptr<envs::BatchedEnv> env;  // built on first use, on this actor's thread
  std::shared_ptr<Policy> policy;
  std::unique_ptr<FlatParameters> parameters;
};

using self_ptr = evaluator_actor::stateful_pointer<EvaluatorState>;

void build(EvaluatorState& s) {
  use_intra_op_threads(s.setup.torch_threads);
  s.env = s.setup.make_env();
  if (!s.env) throw std::invalid_argument(s.setup.name + ": the env factory returned nothing");
  s.policy = s.setup.make_policy(s.env->spec());
  if (!s.policy)
    throw std::invalid_argument(s.setup.name + ": the policy factory returned nothing");
  s.parameters = std::make_unique<FlatParameters>(*s.policy, s.setup.model_lease);
}

caf::result<msg::MetricsFrame> evaluate(self_ptr self, const msg::WeightsFrame& frame) {
  auto& s = self->state;
  auto update = msg::read(frame);
  if (!update)
    return make_error(errc::malformed_message, s.setup.name + ": " + update.error().message());
  if (!s.env) build(s);
  if (auto loaded = s.parameters->load(*update); !loaded)
    return make_error(errc::incompatible_message, s.setup.name + ": " + loaded.error().message());
  const auto result = evaluate_policy(*s.policy, *s.env, s.setup.seed);
  return msg::build(
      msg::Metrics{s.setup.name, steady_now_ns(), evaluation_report(result, update->version)});
}

evaluator_actor::behavior_type evaluator(self_ptr self, EvaluatorSetup setup) {
  name_failures(self, setup.name);
  self->state.setup = std::move(setup);
  return {[self](const msg::WeightsFrame& frame) { return evaluate(self, frame); }};
}

}  // namespace

evaluator_actor spawn_evaluator(caf::actor_system& system, EvaluatorSetup setup) {
  return system.spawn<caf::detached>(evaluator, std::move(setup));
}

}  // namespace dvla::actors
