#include "dvla-bench/planes_actors.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <chrono>
#include <cmath>

#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/control_command.hpp>
#include <dvla/messages/trajectory_segment.hpp>

namespace dvla::apps::planes {
namespace {

// A control command answered by the data actor itself: (request id, idle ns; 0: busy now).
caf::result<uint64_t, int64_t> answer(const msg::ControlFrame& frame) {
  auto command = msg::read(frame);
  if (!command) return caf::make_error(caf::sec::unexpected_message, command.error().message());
  return {command->request_id, int64_t{0}};
}

void spin_for(int64_t us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

struct SourceState {
  msg::SegmentFrame segment;
  int credits = 0, in_flight = 0;
  caf::actor sink;
  std::shared_ptr<LaneTrack> track;
};

void fill(caf::stateful_actor<SourceState>* self) {
  auto& s = self->state;
  while (s.in_flight < s.credits) {
    ++s.in_flight;
    ScopedWork work(s.track.get(), "ship_segment");
    self->request(s.sink, caf::infinite, s.segment)
        .then(
            [self](uint64_t) {
              --self->state.in_flight;
              fill(self);
            },
            [self](caf::error& e) { self->quit(std::move(e)); });
  }
}

}  // namespace

const char* name(Layout layout) {
  constexpr const char* names[] = {"split", "shared", "mailbox"};
  return names[static_cast<int>(layout)];
}

Expected<Layout> parse_layout(const std::string& text) {
  for (auto l : {Layout::split, Layout::shared, Layout::mailbox})
    if (text == name(l)) return l;
  return Error("plane layout '" + text + "' is not split, shared or mailbox");
}

std::unique_ptr<actors::PlaneSystems> make_systems(Layout layout) {
  return std::make_unique<actors::PlaneSystems>(layout == Layout::split, 2);
}

msg::SegmentFrame flood_segment(size_t bytes) {
  const int64_t T = 64, E = 16;
  const auto side = std::max<int64_t>(
      1, static_cast<int64_t>(std::sqrt(static_cast<double>(bytes) / (T * E * 3))));
  std::vector<uint8_t> images(static_cast<size_t>(T * E * side * side * 3), 7);
  std::vector<float> state(T * E * 8, 0.5f), actions(T * E, 0.f), zeros(T * E, 0.f),
      bootstrap(E, 0.f);
  std::vector<uint8_t> flags(T * E, 0);
  msg::TrajectorySegment s;
  s.observations = {{state.data(), {T, E, 8}}, {images.data(), {T, E, 1, side, side, 3}}, {}};
  s.success = {flags.data(), {T, E}};
  s.actions = {actions.data(), {T, E, 1}};
  s.rewards = {zeros.data(), {T, E}};
  s.terminated = {flags.data(), {T, E}};
  s.truncated = {flags.data(), {T, E}};
  s.log_probs = {zeros.data(), {T, E}};
  s.values = {zeros.data(), {T, E}};
  s.bootstrap_values = {bootstrap.data(), {E}};
  s.policy_versions.assign(T, 0);
  return msg::build(s);
}

caf::actor spawn_sink(caf::actor_system& system, int64_t work_us,
                      std::shared_ptr<SinkCounters> counters, std::shared_ptr<LaneTrack> track) {
  return system.spawn<caf::detached>([=]() -> caf::behavior {
    return {
        [=](const msg::SegmentFrame& frame) -> caf::result<uint64_t> {
          ScopedWork work(track.get(), "train");
          auto segment = msg::read(frame);
          if (!segment) return caf::make_error(caf::sec::unexpected_message);
          spin_for(work_us);
          counters->bytes += frame.size();
          return ++counters->segments;
        },
        [](const msg::ControlFrame& frame) { return answer(frame); },
    };
  });
}

caf::actor spawn_source(caf::actor_system& system, msg::SegmentFrame segment, int credits,
                        std::shared_ptr<LaneTrack> track) {
  return system.spawn<caf::detached>([=](caf::stateful_actor<SourceState>* self) -> caf::behavior {
    self->state.segment = segment;
    self->state.credits = credits;
    self->state.track = track;
    return {
        [self](flood_atom, const caf::actor& sink) {
          self->state.sink = sink;
          fill(self);
        },
        [](const msg::ControlFrame& frame) { return answer(frame); },
    };
  });
}

caf::actor spawn_registry(caf::actor_system& system, std::vector<caf::actor> endpoints,
                          std::vector<caf::actor> sources) {
  return system.spawn([=](caf::event_based_actor* self) -> caf::behavior {
    return {
        [=](endpoints_atom) { return endpoints; },
        [=](flood_atom, const caf::actor& sink) {
          for (const auto& s : sources) self->send(s, flood_atom::value, sink);
        },
    };
  });
}

}  // namespace dvla::apps::planes
