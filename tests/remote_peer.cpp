// dvla-test-peer: the far side of test_remote. Publishes an actor on 127.0.0.1 that decodes each
// trajectory segment it receives and answers with a digest of the decoded contents (or the
// decoding error), prints its port on stdout, and exits when its stdin closes.
#include <unistd.h>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <iostream>
#include <string>

#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/type_registry.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include "segment_digest.hpp"

int main() {
  alarm(120);  // never outlive a test that forgot us
  caf::actor_system_config config;
  dvla::actors::register_types(config);
  config.load<caf::io::middleman>();
  caf::actor_system system{config};
  auto echo = system.spawn([]() -> caf::behavior {
    return {[](const dvla::msg::SegmentFrame& f) -> std::string {
      auto s = dvla::msg::read(f);
      return s ? dvla::test::digest(*s) : "error: " + s.error().message();
    }};
  });
  auto port = system.middleman().publish(echo, 0, "127.0.0.1");
  if (!port) {
    std::cerr << "dvla-test-peer: publish failed: " << system.render(port.error()) << "\n";
    return 1;
  }
  std::cout << *port << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
  return 0;
}
