#pragma once
// PlaneSystems: a process's CAF actor systems for the two planes. Split, each plane has an actor
// system of its own, with its own middleman: its own port, connections and network thread, so
// between processes control traffic never queues behind data bytes on a connection. Shared, one
// system serves both (one connection per peer). Both have dvla's message types and the
// middleman loaded. `dvla-bench planes` measures the difference.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <memory>

namespace dvla::actors {

class PlaneSystems {
 public:
  PlaneSystems(bool split, size_t scheduler_threads);
  ~PlaneSystems();
  PlaneSystems(const PlaneSystems&) = delete;
  PlaneSystems& operator=(const PlaneSystems&) = delete;

  bool split() const { return control_ != nullptr; }
  caf::actor_system& data() { return *data_; }
  caf::actor_system& control() { return control_ ? *control_ : *data_; }

 private:
  caf::actor_system_config data_config_, control_config_;
  std::unique_ptr<caf::actor_system> data_, control_;
};

}  // namespace dvla::actors
