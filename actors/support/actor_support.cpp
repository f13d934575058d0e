#include <dvla/actors/support/actor_support.hpp>

#include <fmt/core.h>
#include <caf/send.hpp>

#include <dvla/actors/support/frame_inspect.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/runtime/lanes/lane_track.hpp>

namespace dvla::actors {

void name_failures(caf::scheduled_actor* self, std::string actor_name) {
  self->set_exception_handler(
      [name = std::move(actor_name)](caf::scheduled_actor*, std::exception_ptr& ptr) {
        try {
          std::rethrow_exception(ptr);
        } catch (const std::exception& e) {
          return make_error(errc::actor_failed, name + ": " + e.what());
        } catch (...) {
          return make_error(errc::actor_failed, name + ": unknown exception");
        }
      });
}

uint64_t steady_now_ns() { return static_cast<uint64_t>(trace_clock_ns()); }

void report_rejected(const caf::actor& supervisor, const std::string& actor_name,
                     const std::string& what) {
  fmt::print(stderr, "dvla: {} rejected a message: {}\n", actor_name, what);
  if (!supervisor) return;
  caf::anon_send(supervisor,
                 msg::build(msg::Metrics{actor_name, steady_now_ns(), msg::RejectionReport{what}}));
}

caf::error refuse(const caf::actor& supervisor, const std::string& actor_name, errc code,
                  const std::string& what) {
  report_rejected(supervisor, actor_name, what);
  return make_error(code, what);
}

}  // namespace dvla::actors
