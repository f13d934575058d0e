#include <dvla/actors/support/errors.hpp>

#include <caf/sec.hpp>

namespace dvla::actors {

const char* to_string(errc e) {
  switch (e) {
    case errc::malformed_message:
      return "malformed_message";
    case errc::incompatible_message:
      return "incompatible_message";
    case errc::actor_failed:
      return "actor_failed";
    case errc::no_answer:
      return "no_answer";
    case errc::bad_setup:
      return "bad_setup";
  }
  return "unknown";
}

std::string describe(const caf::error& e) {
  if (!e) return "no error";
  if (e.category() == caf::atom("dvla")) {
    std::string text = to_string(static_cast<errc>(e.code()));
    if (e.context().match_elements<std::string>())
      text += ": " + e.context().get_as<std::string>(0);
    return text;
  }
  if (e.category() == caf::atom("system")) {
    std::string text = caf::to_string(static_cast<caf::sec>(e.code()));
    if (!e.context().empty()) text += " " + caf::to_string(e.context());
    return text;
  }
  return caf::to_string(e);
}

}  // namespace dvla::actors
