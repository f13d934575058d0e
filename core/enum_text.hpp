#pragma once
// Enums that travel as text (config values, JSON summaries, --help): each enum declares its names
// once, beside its definition, by specialising EnumNames:
//   template <> struct EnumNames<RunMode> {
//     static constexpr std::array<std::pair<RunMode, std::string_view>, 2> names{
//         {{RunMode::async, "async"}, {RunMode::sync, "sync"}}};
//   };
// and to_text / from_text / choices work for it.
#include <optional>
#include <string>
#include <string_view>

namespace dvla {

template <class E>
struct EnumNames;  // specialised per enum with a `names` array of (value, text) pairs

template <class E>
constexpr std::string_view to_text(E value) {
  for (const auto& [v, text] : EnumNames<E>::names)
    if (v == value) return text;
  return "?";
}

template <class E>
std::optional<E> from_text(std::string_view text) {
  for (const auto& [v, name] : EnumNames<E>::names)
    if (name == text) return v;
  return std::nullopt;
}

// "async or sync", "cpu, cuda or ..." for error messages; with `separator` " | " for --help.
template <class E>
std::string choices(std::string_view separator = "", std::string_view last = " or ") {
  const auto& names = EnumNames<E>::names;
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += separator.empty() ? (i + 1 == names.size() ? last : ", ") : separator;
    out += names[i].second;
  }
  return out;
}

}  // namespace dvla
