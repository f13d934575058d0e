#pragma once
// Small pieces every dvla actor uses: naming its failures, reporting to the supervisor.
#include <caf/actor.hpp>
#include <caf/scheduled_actor.hpp>

#include <chrono>
#include <string>

#include <dvla/actors/support/errors.hpp>

namespace dvla::actors {

// An exception that escapes a handler ends the actor (CAF 0.17 cannot resume it); this makes the
// exit reason name the actor and the exception, so the supervisor can say what failed.
void name_failures(caf::scheduled_actor* self, std::string actor_name);

// Counts a refused message at the supervisor and says on stderr what was wrong with it.
void report_rejected(const caf::actor& supervisor, const std::string& actor_name,
                     const std::string& what);
// report_rejected, then the error that answers the refused request.
caf::error refuse(const caf::actor& supervisor, const std::string& actor_name, errc code,
                  const std::string& what);

// Seconds as a CAF timeout.
inline caf::duration timeout_of(double seconds) {
  return caf::duration(std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6)));
}

uint64_t steady_now_ns();

}  // namespace dvla::actors
