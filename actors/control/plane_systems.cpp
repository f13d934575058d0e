#include <dvla/actors/control/plane_systems.hpp>

#include <caf/io/middleman.hpp>

#include <dvla/actors/support/type_registry.hpp>

namespace dvla::actors {
namespace {

void configure(caf::actor_system_config& config, size_t scheduler_threads) {
  register_types(config);
  config.load<caf::io::middleman>();
  config.set("scheduler.max-threads", scheduler_threads);
}

}  // namespace

PlaneSystems::PlaneSystems(bool split, size_t scheduler_threads) {
  configure(data_config_, scheduler_threads);
  data_ = std::make_unique<caf::actor_system>(data_config_);
  if (!split) return;
  configure(control_config_, scheduler_threads);
  control_ = std::make_unique<caf::actor_system>(control_config_);
}

PlaneSystems::~PlaneSystems() {
  control_.reset();  // first: its endpoints refer to actors of the data system
  data_.reset();
}

}  // namespace dvla::actors
