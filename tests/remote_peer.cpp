// dvla-test-peer: the far side of test_remote. Publishes an actor on 127.0.0.1 that decodes each
// trajectory segment it receives and answers with a digest of the decoded contents (or the
// decoding error), prints its port on stdout, and exits when its stdin closes. Given CERT KEY
// CAFILE, it listens with mutual TLS.
#include <unistd.h>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <iostream>
#include <string>

#include <dvla/actors/control/plane_systems.hpp>
#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/actors/support/type_registry.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include "segment_digest.hpp"

int main(int argc, char** argv) {
  alarm(120);  // never outlive a test that forgot us
  dvla::actors::NetworkOptions network;
  if (argc == 4) network = {0, 0, argv[1], argv[2], argv[3]};
  dvla::actors::PlaneSystems planes(false, 2, network);
  auto& system = planes.data();
  auto echo = system.spawn([]() -> caf::behavior {
    return {[](const dvla::msg::SegmentFrame& f) -> std::string {
      auto s = dvla::msg::read(f);
      return s ? dvla::test::digest(*s) : "error: " + s.error().message();
    }};
  });
  auto port = planes.publish(echo, "127.0.0.1", 0);
  if (!port) {
    std::cerr << "dvla-test-peer: " << port.error().message() << "\n";
    return 1;
  }
  std::cout << *port << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
  return 0;
}
