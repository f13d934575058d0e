#include <dvla/core/settings.hpp>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <dvla/core/text.hpp>

namespace dvla {
namespace {

template <class Int>
bool parse_int(const std::string& text, Int& out) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && p == end && !text.empty();
}

bool parse(const std::string& text, uint64_t* out) {
  return text.find('-') == std::string::npos && parse_int(text, *out);
}
bool parse(const std::string& text, int* out) { return parse_int(text, *out); }
bool parse(const std::string& text, int64_t* out) { return parse_int(text, *out); }
bool parse(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}
bool parse(const std::string& text, bool* out) {
  if (text == "true" || text == "1" || text == "yes") return *out = true, true;
  if (text == "false" || text == "0" || text == "no") return *out = false, true;
  return false;
}
bool parse(const std::string& text, std::string* out) { return *out = text, true; }
bool parse(const std::string& text, std::vector<int64_t>* out) {
  std::vector<int64_t> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int64_t v;
    if (!parse_int(trim(item), v)) return false;
    values.push_back(v);
  }
  *out = values;
  return true;
}
bool parse(const std::string& text, std::vector<std::string>* out) {
  std::vector<std::string> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (trim(item).empty()) return false;
    values.push_back(trim(item));
  }
  *out = values;
  return true;
}
bool parse(const std::string& text, const EnumField& field) { return field.set(text); }

std::string expected_form(const SettingRef& ref) {
  struct Form {
    std::string operator()(uint64_t*) const { return "a non-negative integer"; }
    std::string operator()(int*) const { return "an integer"; }
    std::string operator()(int64_t*) const { return "an integer"; }
    std::string operator()(double*) const { return "a finite number"; }
    std::string operator()(bool*) const { return "true or false"; }
    std::string operator()(std::string*) const { return "text"; }
    std::string operator()(std::vector<int64_t>*) const { return "comma-separated integers"; }
    std::string operator()(std::vector<std::string>*) const {
      return "comma-separated words (none empty)";
    }
    std::string operator()(const EnumField& e) const { return e.choices; }
  };
  return std::visit(Form{}, ref);
}

}  // namespace

Status set_setting(const Setting& setting, const std::string& value) {
  const std::string text = trim(value);
  const bool ok = std::visit([&](const auto& p) { return parse(text, p); }, setting.ref);
  if (!ok)
    return Error("config key '" + setting.key + "': '" + text + "' is not " +
                 expected_form(setting.ref));
  return Status::ok();
}

std::string format_setting(const Setting& setting) {
  struct Format {
    std::string operator()(std::string* p) const { return *p; }
    std::string operator()(bool* p) const { return *p ? "true" : "false"; }
    // The shortest text that reads back as the same double: 0.2, not 0.20000000000000001.
    std::string operator()(double* p) const {
      std::array<char, 64> text;
      const auto end = std::to_chars(text.data(), text.data() + text.size(), *p).ptr;
      return std::string(text.data(), end);
    }
    std::string operator()(std::vector<int64_t>* p) const {
      std::string s;
      for (size_t i = 0; i < p->size(); ++i) s += (i ? "," : "") + std::to_string((*p)[i]);
      return s;
    }
    std::string operator()(std::vector<std::string>* p) const {
      std::string s;
      for (size_t i = 0; i < p->size(); ++i) s += (i ? "," : "") + (*p)[i];
      return s;
    }
    std::string operator()(const EnumField& e) const { return e.get(); }
    std::string operator()(uint64_t* p) const { return std::to_string(*p); }
    std::string operator()(int* p) const { return std::to_string(*p); }
    std::string operator()(int64_t* p) const { return std::to_string(*p); }
  };
  return std::visit(Format{}, setting.ref);
}

const Setting* find_setting(const std::vector<Setting>& table, const std::string& key) {
  for (const auto& s : table)
    if (s.key == key) return &s;
  return nullptr;
}

}  // namespace dvla
