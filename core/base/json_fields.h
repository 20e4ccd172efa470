#pragma once
// Fields of JSON that came from outside, read with errors that name the file and the field; and
// optional values written as JSON.
#include <optional>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_number.h"

namespace attnscope {

// Writing: an optional value, null where it is unset.
template <typename T>
nlohmann::json json_or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// A field that may be absent: null when json is no object or lacks it. (operator[] on a const
// json with a missing key is undefined behaviour: the fuzzer found a tokenizer's post-processor
// without "cls" reading freed memory.)
inline const nlohmann::json& json_member(const nlohmann::json& json, const std::string& key) {
  static const nlohmann::json none;
  if (!json.is_object()) return none;
  const auto it = json.find(key);
  return it == json.end() ? none : *it;
}

inline const nlohmann::json& json_field(const nlohmann::json& json, const char* key, const std::string& where) {
  if (!json.is_object() || !json.contains(key)) throw Error(where + ": missing \"" + key + "\"");
  return json[key];
}

// The field as T; integers are range-checked (json_integer), other types refused with a message.
template <typename T>
T json_typed(const nlohmann::json& json, const char* key, const std::string& where) {
  const auto& v = json_field(json, key, where);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return json_integer<T>(v, where + ": \"" + key + "\"");
  } else {
    try {
      return v.get<T>();
    } catch (const nlohmann::json::exception&) {
      throw Error(where + ": \"" + key + "\" has the wrong type (" + v.dump().substr(0, 40) + ")");
    }
  }
}

// A field that may be absent or null (the fallback then), else of type T: a field of another type
// is refused with the file's message (json::value() would throw nlohmann's own, naming no file).
template <typename T>
T json_optional(const nlohmann::json& json, const char* key, T fallback, const std::string& where) {
  if (json_member(json, key).is_null()) return fallback;
  return json_typed<T>(json, key, where);
}

}  // namespace attnscope
