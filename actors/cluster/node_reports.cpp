#include <dvla/actors/cluster/node_reports.hpp>

#include <caf/all.hpp>

#include <variant>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/sender_check.hpp>
#include <dvla/messages/metrics.hpp>

namespace dvla::actors {
namespace {

using self_ptr = node_reports_actor::stateful_pointer<NodeReportsSetup>;

// The node's own process, or anonymous: its actors report refusals with anonymous sends (CAF gives
// no sender to check then; such a report can only add to a count).
bool from_the_node(self_ptr self) {
  return !sender_node(self) || from_process_of(self, self->state.process);
}

void refuse_report(self_ptr self, const std::string& kind, const std::string& why) {
  self->send(self->state.coordinator, refused_atom::value, sender_node(self), kind, why);
}

void on_metrics(self_ptr self, const msg::MetricsFrame& frame) {
  auto& s = self->state;
  if (!from_the_node(self))
    return refuse_report(self, "report",
                         "a report for node '" + s.name + "' from " + sender_text(self));
  auto m = msg::read(frame);
  if (!m) return refuse_report(self, "malformed report", m.error().message());
  if (!std::holds_alternative<msg::RejectionReport>(m->report))
    return refuse_report(self, "report",
                         "a report other than a refusal from node '" + s.name +
                             "' (its env steps count from its segments, nothing else)");
  self->send(s.supervisor, frame);
}

node_reports_actor::behavior_type node_reports(self_ptr self, NodeReportsSetup setup) {
  name_failures(self, "reports/" + setup.name);
  self->state = std::move(setup);
  end_with(self, self->state.coordinator);
  refuse_other_messages(self, self->state.coordinator, "reports/" + self->state.name);
  return {
      [self](const msg::MetricsFrame& frame) { on_metrics(self, frame); },
      [self](delivered_atom a, const std::string& name, uint64_t version, uint64_t bytes) {
        if (!from_the_node(self))
          return refuse_report(self, "delivery",
                               "a weights delivery report from " + sender_text(self));
        self->send(self->state.supervisor, a, name, version, bytes);
      },
  };
}

}  // namespace

node_reports_actor spawn_node_reports(caf::actor_system& system, NodeReportsSetup setup) {
  return system.spawn(node_reports, std::move(setup));
}

}  // namespace dvla::actors
