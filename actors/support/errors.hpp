#pragma once
// dvla's error category for CAF: errors that cross actor boundaries carry a code and a message.
#include <caf/error.hpp>
#include <caf/make_message.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <dvla/core/enum_text.hpp>

namespace dvla::actors {

enum class errc : uint8_t {
  malformed_message = 1,  // a frame failed validation
  incompatible_message,   // a valid frame that does not fit the receiver (shape, policy)
  actor_failed,           // an actor ended by an exception
  no_answer,              // a peer did not answer in time
  bad_setup,              // an actor could not be built from its setup
  not_allowed,            // a sender that may not send this message (another peer's, internal)
};

}  // namespace dvla::actors

namespace dvla {

template <>
struct EnumNames<actors::errc> {
  static constexpr std::array<std::pair<actors::errc, std::string_view>, 6> names{
      {{actors::errc::malformed_message, "malformed_message"},
       {actors::errc::incompatible_message, "incompatible_message"},
       {actors::errc::actor_failed, "actor_failed"},
       {actors::errc::no_answer, "no_answer"},
       {actors::errc::bad_setup, "bad_setup"},
       {actors::errc::not_allowed, "not_allowed"}}};
};

}  // namespace dvla

namespace dvla::actors {

inline caf::error make_error(errc code, std::string message) {
  return caf::error(static_cast<uint8_t>(code), caf::atom("dvla"),
                    caf::make_message(std::move(message)));
}

// A readable sentence for any error: dvla errors give their message, others CAF's rendering.
std::string describe(const caf::error& e);

// Whether a request's error says its receiver is gone: it ended by an exception (while on the
// request or before it), or was no longer there.
bool actor_gone(const caf::error& e);

}  // namespace dvla::actors
