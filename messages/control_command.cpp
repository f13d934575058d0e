#include <dvla/messages/control_command.hpp>

#include <dvla/messages/control_command.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {

ControlFrame build(const ControlCommand& m) {
  return ControlFrame(codec::encode<schema::ControlCommand>(
      m.argument.size(), [&](schema::ControlCommand::Builder b) {
        b.setKind(static_cast<schema::ControlCommand::Kind>(m.kind));
        b.setRequestId(m.request_id);
        b.setArgument(codec::text(m.argument));
      }));
}

Expected<ControlCommand> read(const ControlFrame& f) {
  return codec::decode<schema::ControlCommand>(
      f.bytes(), f.kind, [](schema::ControlCommand::Reader r) {
        ControlCommand m;
        const auto kind = static_cast<uint16_t>(r.getKind());
        codec::require(kind <= static_cast<uint16_t>(Command::evaluate),
                       "field 'kind' is not a known command");
        m.kind = static_cast<Command>(kind);
        m.request_id = r.getRequestId();
        m.argument = codec::text(r.getArgument());
        return m;
      });
}

}  // namespace dvla::msg
