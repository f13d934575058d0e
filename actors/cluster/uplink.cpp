#include <dvla/actors/cluster/uplink.hpp>

#include <caf/all.hpp>

#include <variant>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/trajectory_segment.hpp>

namespace dvla::actors {
namespace {

struct UplinkState {
  UplinkSetup setup;
  msg::SamplingReport held;  // reported since the last segment shipped
};

using self_ptr = uplink_actor::stateful_pointer<UplinkState>;

void hold(msg::SamplingReport& held, const msg::SamplingReport& r) {
  held.group = r.group;
  held.env_steps += r.env_steps;
  held.episode_returns.insert(held.episode_returns.end(), r.episode_returns.begin(),
                              r.episode_returns.end());
  held.episode_successes.insert(held.episode_successes.end(), r.episode_successes.begin(),
                                r.episode_successes.end());
  held.segments_dropped += r.segments_dropped;
}

void on_report(self_ptr self, const msg::MetricsFrame& frame) {
  auto& s = self->state;
  auto m = msg::read(frame);
  if (!m) return report_rejected(s.setup.supervisor, "uplink/" + s.setup.name, m.error().message());
  if (auto* sampling = std::get_if<msg::SamplingReport>(&m->report)) return hold(s.held, *sampling);
  caf::anon_send(s.setup.supervisor, frame);
}

caf::result<uint64_t> ship(self_ptr self, msg::SegmentFrame& segment) {
  auto& s = self->state;
  auto report = msg::build(msg::Metrics{s.setup.name, steady_now_ns(), std::move(s.held)});
  s.held = {};
  const auto read = msg::read(segment);
  const uint64_t steps = read ? static_cast<uint64_t>(read->valid_steps()) : 0;
  auto promise = self->make_response_promise<uint64_t>();
  self->request(s.setup.intake, caf::infinite, std::move(segment), std::move(report))
      .then(
          [promise, steps, counter = s.setup.acknowledged](uint64_t version) mutable {
            if (counter) *counter += steps;
            promise.deliver(version);
          },
          [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
  return promise;
}

uplink_actor::behavior_type uplink(self_ptr self, UplinkSetup setup) {
  name_failures(self, "uplink/" + setup.name);
  self->state.setup = std::move(setup);
  return {
      [self](msg::SegmentFrame& segment) { return ship(self, segment); },
      // Samplers of a multi-node run have no budget of their own: they never finish.
      [](finished_atom, uint32_t) {},
      [self](const msg::MetricsFrame& frame) { on_report(self, frame); },
  };
}

}  // namespace

uplink_actor spawn_uplink(caf::actor_system& system, UplinkSetup setup) {
  return system.spawn(uplink, std::move(setup));
}

}  // namespace dvla::actors
