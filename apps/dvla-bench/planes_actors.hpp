#pragma once
// The pieces of `dvla-bench planes`: a data-plane flood (sources that push trajectory segments
// to a sink that trains on each) and the actor systems of each plane layout. The coordinator
// (planes_bench.cpp) hosts the sink; a worker process (planes_worker.cpp) hosts the sources.
//
// Layouts:
//   split    two actor systems per process, one per plane, each with its own middleman, port and
//            connection; every data actor has a control endpoint in the control system;
//   shared   one actor system per process, so both planes share one connection; the control
//            endpoints are still actors of their own;
//   mailbox  one system, and no endpoints: control commands go to the data actors themselves and
//            wait behind their data (planes that are only a naming convention).
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <dvla/actors/atoms.hpp>
#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>

namespace dvla::apps::planes {

using endpoints_atom = caf::atom_constant<caf::atom("endpoints")>;
using flood_atom = caf::atom_constant<caf::atom("flood")>;

enum class Layout { split, shared, mailbox };
const char* name(Layout layout);
Expected<Layout> parse_layout(const std::string& text);
// The actor systems of a layout's process (2 scheduler threads each: the VM has 2 cores).
std::unique_ptr<actors::PlaneSystems> make_systems(Layout layout);

// A trajectory segment of about `bytes` (64 steps x 16 envs with camera images).
msg::SegmentFrame flood_segment(size_t bytes);

struct SinkCounters {
  std::atomic<uint64_t> segments{0}, bytes{0};
};

// The trainer of the flood: decodes each segment, spends `work_us` of CPU on it, then answers
// (the sender's credit). Detached. Answers control commands itself (mailbox layout).
caf::actor spawn_sink(caf::actor_system& system, int64_t work_us,
                      std::shared_ptr<SinkCounters> counters, std::shared_ptr<LaneTrack> track);

// A sampler of the flood: once sent (flood_atom, sink) it keeps `credits` segments in flight to
// the sink. Detached. Answers control commands itself (mailbox layout).
caf::actor spawn_source(caf::actor_system& system, msg::SegmentFrame segment, int credits,
                        std::shared_ptr<LaneTrack> track);

// What a process offers the other: endpoints_atom -> the actors to send control commands to;
// (flood_atom, sink) -> every source starts pushing to the sink.
caf::actor spawn_registry(caf::actor_system& system, std::vector<caf::actor> endpoints,
                          std::vector<caf::actor> sources);

// The worker process: `dvla-bench planes-worker LAYOUT SOURCES CREDITS SEGMENT_BYTES`. Prints
// "DATA_PORT CONTROL_PORT" and serves until its stdin closes.
int run_worker(int argc, char** argv);

}  // namespace dvla::apps::planes
