#include <dvla/actors/cluster/segment_intake.hpp>

#include <caf/all.hpp>

#include <cmath>
#include <deque>
#include <utility>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/sender_check.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/trajectory_segment.hpp>

namespace dvla::actors {
namespace {

struct Episode {
  double episode_return = 0;
  bool success = false;
};

struct SegmentIntakeState {
  SegmentIntakeSetup setup;
  // Episodes the node reported, waiting for segments that ended as many; bounded.
  std::deque<Episode> reported;
  uint64_t ended = 0;  // episodes its acknowledged segments ended, not yet matched by a report
};

using self_ptr = segment_intake_actor::stateful_pointer<SegmentIntakeState>;

caf::error refuse_segment(self_ptr self, const std::string& kind, const std::string& why) {
  self->send(self->state.setup.coordinator, refused_atom::value, sender_node(self), kind, why);
  return make_error(errc::not_allowed, why);
}

// Why `segment` is not one of this node's, or empty.
std::string misfit(const SegmentIntakeSetup& s, const msg::TrajectorySegment& segment) {
  const auto& a = s.node;
  if (segment.sampler_id < a.first_sampler || segment.sampler_id - a.first_sampler >= a.samplers)
    return "a segment of sampler " + std::to_string(segment.sampler_id) + ", which is not node '" +
           a.name + "''s (samplers " + std::to_string(a.first_sampler) + ".." +
           std::to_string(a.first_sampler + a.samplers - 1) + ")";
  const auto envs = segment.envs();
  if (envs < 1 || segment.first_env + static_cast<uint64_t>(envs) > a.envs_per_sampler)
    return "a segment of envs " + std::to_string(segment.first_env) + ".." +
           std::to_string(segment.first_env + envs) + " where a sampler of node '" + a.name +
           "' has " + std::to_string(a.envs_per_sampler);
  if (segment.steps() < 1 || segment.steps() > s.max_segment_steps)
    return "a segment of " + std::to_string(segment.steps()) + " steps (at most " +
           std::to_string(s.max_segment_steps) + ")";
  return {};
}

// Episodes `segment` ended on its valid steps.
uint64_t episodes_ended(const msg::TrajectorySegment& segment) {
  const int64_t n = segment.steps() * segment.envs();
  uint64_t ended = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool valid = segment.valid.shape.empty() || segment.valid.data[i] != 0;
    ended += valid && (segment.terminated.data[i] != 0 || segment.truncated.data[i] != 0);
  }
  return ended;
}

// The most episodes the node's reports may hold waiting for segments that ended them: a few
// batches of every env of its samplers.
size_t most_waiting(const SegmentIntakeSetup& s) {
  return 4 * static_cast<size_t>(s.node.samplers) * s.node.envs_per_sampler + 64;
}

// Why a report cannot be a sampler's of this node, or empty.
std::string bad_report(const SegmentIntakeSetup& s, const msg::SamplingReport& r) {
  if (r.episode_returns.size() != r.episode_successes.size())
    return "a report with " + std::to_string(r.episode_returns.size()) + " returns and " +
           std::to_string(r.episode_successes.size()) + " successes";
  if (r.episode_returns.size() > most_waiting(s))
    return "a report of " + std::to_string(r.episode_returns.size()) +
           " episodes, more than its samplers' envs can have ended";
  for (const double x : r.episode_returns)
    if (!std::isfinite(x)) return "a report with a return that is not finite";
  return {};
}

// What an acknowledged segment counts: its own valid steps, and of the episodes the node reported
// (kept waiting, the oldest dropped past most_waiting) as many as its segments have ended.
msg::SamplingReport counted(SegmentIntakeState& s, const msg::SamplingReport& reported,
                            uint64_t env_steps, uint64_t ended) {
  for (size_t i = 0; i < reported.episode_returns.size(); ++i)
    s.reported.push_back({reported.episode_returns[i], reported.episode_successes[i]});
  while (s.reported.size() > most_waiting(s.setup)) s.reported.pop_front();
  s.ended += ended;
  msg::SamplingReport r;
  r.group = s.setup.node.group;
  r.env_steps = env_steps;
  r.segments_dropped = std::min<uint64_t>(reported.segments_dropped, 1024);
  while (s.ended > 0 && !s.reported.empty()) {
    r.episode_returns.push_back(s.reported.front().episode_return);
    r.episode_successes.push_back(s.reported.front().success);
    s.reported.pop_front();
    --s.ended;
  }
  return r;
}

caf::result<uint64_t> take(self_ptr self, msg::SegmentFrame segment, msg::MetricsFrame report) {
  auto& s = self->state;
  if (!from_process_of(self, s.setup.process))
    return refuse_segment(
        self, "segment",
        "a segment for node '" + s.setup.node.name + "' from " + sender_text(self));
  const auto read = msg::read(segment);
  if (!read) return refuse_segment(self, "malformed segment", read.error().message());
  if (auto why = misfit(s.setup, *read); !why.empty()) return refuse_segment(self, "segment", why);
  const auto metrics = msg::read(report);
  const auto* sampling = metrics ? std::get_if<msg::SamplingReport>(&metrics->report) : nullptr;
  if (!sampling)
    return refuse_segment(
        self, "segment report",
        metrics ? "a segment's report that is not sampling's" : metrics.error().message());
  if (auto why = bad_report(s.setup, *sampling); !why.empty())
    return refuse_segment(self, "segment report", why);
  const uint64_t env_steps = static_cast<uint64_t>(read->valid_steps());
  const uint64_t ended = episodes_ended(*read);
  const uint64_t oldest = read->oldest_version();
  const uint64_t bytes = segment.size();
  auto promise = self->make_response_promise<uint64_t>();
  // No timeout, as on every data-plane hop: a hung trainer stops the run's progress, which the
  // coordinator's watchdog reports.
  self->request(s.setup.trainer, caf::infinite, std::move(segment))
      .then(
          [self, promise, reported = *sampling, source = metrics->source, env_steps, ended, oldest,
           bytes](uint64_t version) mutable {
            auto& s = self->state;
            auto r = counted(s, reported, env_steps, ended);
            const uint64_t lag = version > oldest ? version - oldest : 0;
            self->send(s.setup.supervisor, acked_atom::value, s.setup.node.node, bytes, lag, oldest,
                       msg::build(msg::Metrics{source, steady_now_ns(), std::move(r)}));
            promise.deliver(version);
          },
          [promise](caf::error& e) mutable { promise.deliver(std::move(e)); });
  return promise;
}

segment_intake_actor::behavior_type segment_intake(self_ptr self, SegmentIntakeSetup setup) {
  name_failures(self, "intake/" + setup.node.name);
  self->state.setup = std::move(setup);
  end_with(self, self->state.setup.coordinator);
  refuse_other_messages(self, self->state.setup.coordinator,
                        "intake/" + self->state.setup.node.name);
  return {[self](msg::SegmentFrame& segment, msg::MetricsFrame& report) {
    return take(self, std::move(segment), std::move(report));
  }};
}

}  // namespace

segment_intake_actor spawn_segment_intake(caf::actor_system& system, SegmentIntakeSetup setup) {
  // Scheduled: it checks a segment's header and counts, then passes it on (the trainer decodes).
  return system.spawn(segment_intake, std::move(setup));
}

}  // namespace dvla::actors
