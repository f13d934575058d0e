#include <dvla/actors/support/errors.hpp>

#include <caf/sec.hpp>

namespace dvla::actors {

std::string describe(const caf::error& e) {
  if (!e) return "no error";
  if (e.category() == caf::atom("dvla")) {
    std::string text(to_text(static_cast<errc>(e.code())));
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

bool actor_gone(const caf::error& e) {
  return e == caf::sec::request_receiver_down ||
         (e.category() == caf::atom("dvla") &&
          e.code() == static_cast<uint8_t>(errc::actor_failed));
}

}  // namespace dvla::actors
