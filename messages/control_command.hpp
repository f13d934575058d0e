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
std::string_view command_name(Command c) noexcept;

struct ControlCommand {
  Command kind = Command::ping;
  uint64_t request_id = 0;
  std::string argument;
};

ControlFrame build(const ControlCommand& m);
Expected<ControlCommand> read(const ControlFrame& f);

}  // namespace dvla::msg
