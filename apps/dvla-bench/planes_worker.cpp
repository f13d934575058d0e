// The worker process of `dvla-bench planes`: the flood's sources and their control endpoints,
// in the layout it is told; serves until its stdin closes.
#include <unistd.h>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <iostream>
#include <string>

#include <dvla/actors/control/control_endpoint.hpp>
#include "dvla-bench/planes_actors.hpp"

namespace dvla::apps::planes {

int run_worker(int argc, char** argv) {
  alarm(900);  // never outlive a benchmark that forgot us
  if (argc != 6) {
    std::cerr << "usage: dvla-bench planes-worker LAYOUT SOURCES CREDITS SEGMENT_BYTES\n";
    return 2;
  }
  auto layout = parse_layout(argv[2]);
  if (!layout) {
    std::cerr << "dvla-bench planes-worker: " << layout.error().message() << "\n";
    return 2;
  }
  const int sources = std::stoi(argv[3]), credits = std::stoi(argv[4]);
  const auto segment = flood_segment(std::stoul(argv[5]));
  auto systems = make_systems(*layout);
  std::vector<caf::actor> flood, endpoints;
  for (int i = 0; i < sources; ++i) {
    const auto name = "source/" + std::to_string(i);
    auto track = std::make_shared<LaneTrack>(name, Lane::sampling, false);
    flood.push_back(spawn_source(systems->data(), segment, credits, track));
    if (*layout == Layout::mailbox) {
      endpoints.push_back(flood.back());
      continue;
    }
    actors::ControlEndpointSetup e;
    e.name = name;
    e.data_actor = flood.back();
    e.track = track;
    endpoints.push_back(
        caf::actor_cast<caf::actor>(actors::spawn_control_endpoint(systems->control(), e)));
  }
  auto data_registry = spawn_registry(systems->data(), endpoints, flood);
  auto control_registry = *layout == Layout::split
                              ? spawn_registry(systems->control(), endpoints, flood)
                              : data_registry;
  auto data_port = systems->data().middleman().publish(data_registry, 0, "127.0.0.1");
  auto control_port = *layout == Layout::split
                          ? systems->control().middleman().publish(control_registry, 0, "127.0.0.1")
                          : data_port;
  if (!data_port || !control_port) {
    std::cerr << "dvla-bench planes-worker: cannot publish on 127.0.0.1\n";
    return 1;
  }
  std::cout << *data_port << " " << *control_port << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  for (auto& a : endpoints) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  for (auto& a : flood) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(data_registry, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(control_registry, caf::exit_reason::user_shutdown);
  return 0;
}

}  // namespace dvla::apps::planes
