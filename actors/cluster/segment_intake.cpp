#include <dvla/actors/cluster/segment_intake.hpp>

#include <caf/all.hpp>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/trajectory_segment.hpp>

namespace dvla::actors {
namespace {

using self_ptr = segment_intake_actor::stateful_pointer<SegmentIntakeSetup>;

caf::result<uint64_t> take(self_ptr self, msg::SegmentFrame segment, msg::MetricsFrame report) {
  auto& s = self->state;
  // The oldest version that acted in it (for the node's lag); a malformed segment is refused by
  // the trainer, which names what is wrong with it.
  const auto read = msg::read(segment);
  const uint64_t oldest = read ? read->oldest_version() : 0;
  const uint64_t bytes = segment.size();
  auto promise = self->make_response_promise<uint64_t>();
  // No timeout, as on every data-plane hop: a hung trainer stops the run's progress, which the
  // coordinator's watchdog reports.
  self->request(s.trainer, caf::infinite, std::move(segment))
      .then(
          [self, promise, report = std::move(report), oldest, bytes](uint64_t version) mutable {
            auto& s = self->state;
            const uint64_t lag = version > oldest ? version - oldest : 0;
            caf::anon_send(s.supervisor, acked_atom::value, s.node, bytes, lag, oldest,
                           std::move(report));
            promise.deliver(version);
          },
          [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
  return promise;
}

segment_intake_actor::behavior_type segment_intake(self_ptr self, SegmentIntakeSetup setup) {
  name_failures(self, "intake/" + setup.name);
  self->state = std::move(setup);
  return {[self](msg::SegmentFrame& segment, msg::MetricsFrame& report) {
    return take(self, std::move(segment), std::move(report));
  }};
}

}  // namespace

segment_intake_actor spawn_segment_intake(caf::actor_system& system, SegmentIntakeSetup setup) {
  // Scheduled: it only passes frames on (the trainer decodes them).
  return system.spawn(segment_intake, std::move(setup));
}

}  // namespace dvla::actors
