#include <dvla/runtime/config/toml_config.hpp>

#include <toml.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>
#include <vector>

namespace dvla {
namespace {

// A UTF-8 sequence led by a byte: its length and the bounds of its second byte (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF); length 0 for a byte that leads none.
struct Utf8Lead {
  size_t length;
  unsigned char low, high;
};

Utf8Lead utf8_lead(unsigned char c) {
  if (c < 0x80) return {1, 0, 0};
  if (c >= 0xC2 && c <= 0xDF) return {2, 0x80, 0xBF};
  if (c == 0xE0) return {3, 0xA0, 0xBF};
  if (c == 0xED) return {3, 0x80, 0x9F};
  if (c >= 0xE1 && c <= 0xEF) return {3, 0x80, 0xBF};
  if (c == 0xF0) return {4, 0x90, 0xBF};
  if (c >= 0xF1 && c <= 0xF3) return {4, 0x80, 0xBF};
  if (c == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

// The offset of the first byte that does not belong to a valid UTF-8 sequence, or nullopt.
std::optional<size_t> first_invalid_utf8(const std::string& text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  for (size_t i = 0; i < text.size();) {
    const auto lead = utf8_lead(byte(i));
    if (lead.length == 0 || i + lead.length > text.size()) return i;
    if (lead.length > 1 && (byte(i + 1) < lead.low || byte(i + 1) > lead.high)) return i;
    for (size_t k = 2; k < lead.length; ++k)
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
    i += lead.length;
  }
  return std::nullopt;
}

// "file:line" of a value.
std::string place(const toml::value& v) {
  const auto at = v.location();
  return at.file_name() + ":" + std::to_string(at.line());
}

// "file:line: config key 'ppo.epochs'"
std::string where(const toml::value& v, const std::string& key) {
  return place(v) + ": config key '" + key + "'";
}

template <class Int>
Status set_integer(const toml::value& v, Int* field, const std::string& key) {
  if (!v.is_integer()) return Error(where(v, key) + " needs an integer");
  const auto x = v.as_integer();
  if (x < static_cast<toml::integer>(std::numeric_limits<Int>::min()) ||
      static_cast<uint64_t>(x) > static_cast<uint64_t>(std::numeric_limits<Int>::max()) ||
      (std::is_unsigned_v<Int> && x < 0))
    return Error(where(v, key) + ": " + std::to_string(x) + " is out of range");
  *field = static_cast<Int>(x);
  return {};
}

// One value into the field `setting` points at, by the field's type.
Status set_typed(const Setting& setting, const toml::value& v) {
  const auto& key = setting.key;
  struct Visit {
    const toml::value& v;
    const std::string& key;
    Status operator()(uint64_t* f) const { return set_integer(v, f, key); }
    Status operator()(int* f) const { return set_integer(v, f, key); }
    Status operator()(int64_t* f) const { return set_integer(v, f, key); }
    Status operator()(double* f) const {
      const double x = v.is_floating()  ? v.as_floating()
                       : v.is_integer() ? static_cast<double>(v.as_integer())
                                        : std::nan("");
      if (!std::isfinite(x)) return Error(where(v, key) + " needs a finite number");
      *f = x;
      return {};
    }
    Status operator()(bool* f) const {
      if (!v.is_boolean()) return Error(where(v, key) + " needs true or false");
      *f = v.as_boolean();
      return {};
    }
    Status operator()(std::string* f) const {
      if (!v.is_string()) return Error(where(v, key) + " needs a quoted string");
      *f = v.as_string().str;
      return {};
    }
    Status operator()(std::vector<int64_t>* f) const {
      if (!v.is_array()) return Error(where(v, key) + " needs an array of integers");
      std::vector<int64_t> out;
      for (const auto& item : v.as_array()) {
        int64_t x = 0;
        if (auto s = set_integer(item, &x, key); !s) return s;
        out.push_back(x);
      }
      *f = std::move(out);
      return {};
    }
    Status operator()(std::vector<std::string>* f) const {
      if (!v.is_array()) return Error(where(v, key) + " needs an array of quoted strings");
      std::vector<std::string> out;
      for (const auto& item : v.as_array()) {
        if (!item.is_string() || item.as_string().str.empty())
          return Error(where(item, key) + " needs an array of non-empty quoted strings");
        out.push_back(item.as_string().str);
      }
      *f = std::move(out);
      return {};
    }
    Status operator()(const EnumField& f) const {
      if (!v.is_string() || !f.set(v.as_string().str))
        return Error(where(v, key) + " needs one of " + f.choices + " (a quoted string)");
      return {};
    }
  };
  return std::visit(Visit{v, key}, setting.ref);
}

// Every key of `table` under `prefix`, sections flattened, in key order (so the first error
// reported does not depend on a hash order).
Status apply(const std::vector<Setting>& settings, const toml::value& table,
             const std::string& prefix) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : table.as_table()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (const auto& name : keys) {
    const auto& value = table.as_table().at(name);
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    if (value.is_table()) {
      if (auto s = apply(settings, value, key); !s) return s;
      continue;
    }
    const Setting* setting = find_setting(settings, key);
    if (!setting)
      return Error(place(value) + ": unknown config key '" + key +
                   "' (dvla-ppo --help lists every key)");
    if (auto s = set_typed(*setting, value); !s) return s;
  }
  return {};
}

}  // namespace

Status load_toml_config_text(Config& config, const std::string& text, const std::string& origin) {
  // TOML is UTF-8. toml11 3.7 reads past its buffer on invalid UTF-8 in a literal string
  // (ToruNiina/toml11#199, fixed after Debian 12's 3.7.1), so such text never reaches it.
  if (const auto bad = first_invalid_utf8(text))
    return Error(origin + ":" +
                 std::to_string(1 + std::count(text.begin(), text.begin() + *bad, '\n')) +
                 ": not valid TOML: byte " + std::to_string(*bad) + " is not valid UTF-8");
  toml::value root;
  try {
    std::istringstream in(text);
    root = toml::parse(in, origin);
  } catch (const toml::syntax_error& e) {
    return Error(origin + ":" + std::to_string(e.location().line()) + ": not valid TOML\n" +
                 e.what());
  } catch (const std::exception& e) {
    return Error("'" + origin + "': " + e.what());
  }
  return apply(config_settings(config), root, "");
}

}  // namespace dvla
