#pragma once
// ControlCommand: a low-frequency order from the supervisor (ping, pause, resume, checkpoint,
// shutdown), acknowledged with its request id; and to the supervisor from outside the graph
// (those, and evaluate: the latest weights, now).
#include <cstdint>
#include <string>
#include <string_view>

#include <dvla/core/expected.hpp>
#include <dvla/messages/frame.hpp>

namespace dvla::msg {

enum class Command : uint8_t { ping, pause, resume, checkpoint, shutdown, evaluate };

}  // namespace dvla::msg

namespace dvla {

template <>
struct EnumNames<msg::Command> {
  static constexpr std::array<std::pair<msg::Command, std::string_view>, 6> names{
      {{msg::Command::ping, "ping"},
       {msg::Command::pause, "pause"},
       {msg::Command::resume, "resume"},
       {msg::Command::checkpoint, "checkpoint"},
       {msg::Command::shutdown, "shutdown"},
       {msg::Command::evaluate, "evaluate"}}};
};

}  // namespace dvla

namespace dvla::msg {

struct ControlCommand {
  Command kind = Command::ping;
  uint64_t request_id = 0;
  std::string argument;
};

ControlFrame build(const ControlCommand& m);
Expected<ControlCommand> read(const ControlFrame& f);

}  // namespace dvla::msg
