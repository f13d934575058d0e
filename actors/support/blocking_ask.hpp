#pragma once
// ask(): a request from a blocking (scoped) actor that waits for its answer, with a timeout.
//
// Why not a bare request(...).receive(...): in CAF 0.17 the request's timeout stays armed after
// the answer came, and when it expires its error lands in the blocking actor's mailbox, where no
// receive ever takes it (a blocking receive skips responses it is not waiting for). A loop that
// polls (train()'s status every 50 ms, a node's) grew its mailbox without end: about 2.4 KB/s,
// the soak's resident-memory slope. ask() disarms the timeout once the answer is in.
#include <caf/scoped_actor.hpp>

#include <string>
#include <tuple>
#include <utility>

#include <dvla/actors/support/actor_support.hpp>
#include <dvla/actors/support/errors.hpp>
#include <dvla/core/expected.hpp>

namespace dvla::actors {

// Asks `to` and waits at most `timeout_s` seconds; the answer's values, or an error that begins
// with `what`.
template <class... Answer, class Handle, class... Args>
Expected<std::tuple<Answer...>> ask(caf::scoped_actor& self, const Handle& to, double timeout_s,
                                    const std::string& what, Args&&... args) {
  Expected<std::tuple<Answer...>> out = Error(what + ": no answer");
  auto answer = self->request(to, timeout_of(timeout_s), std::forward<Args>(args)...);
  answer.receive([&](Answer&... a) { out = std::make_tuple(std::move(a)...); },
                 [&](const caf::error& e) { out = Error(what + ": " + describe(e)); });
  self->clock().cancel_request_timeout(self.ptr(), answer.id());
  return out;
}

}  // namespace dvla::actors
