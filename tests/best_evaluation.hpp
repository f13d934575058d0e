#pragma once
// An observer of a run's evaluations that keeps the best mean return: learning tests judge what a
// run learned by its best evaluation and its final weights, since PPO's CartPole curve can dip
// late and the final weights alone then say where the run stopped, not whether it learned.
#include <caf/all.hpp>

#include <atomic>
#include <memory>

#include <dvla/actors/graph/user_actors.hpp>
#include <dvla/messages/metrics.hpp>

inline void observe_best_evaluation(dvla::Graph& graph, std::shared_ptr<std::atomic<double>> best) {
  using observer = dvla::actors::observer_actor;
  dvla::add_observer(graph, "best evaluation", [best](caf::actor_system& system) {
    return system.spawn([best](observer::pointer) -> observer::behavior_type {
      return {[](const dvla::msg::VersionFrame&) {},
              [best](const dvla::msg::MetricsFrame& frame) {
                auto m = dvla::msg::read(frame);
                const auto* e = m ? std::get_if<dvla::msg::EvaluationReport>(&m->report) : nullptr;
                if (e && e->mean_return > best->load()) best->store(e->mean_return);
              }};
    });
  });
}
