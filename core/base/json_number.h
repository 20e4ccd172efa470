#pragma once
// Numbers read from JSON that came from outside: nlohmann converts a float to an integer type, or
// a large double to float, with undefined behaviour when the value does not fit. These refuse
// such values with attnscope::Error instead (found by fuzzing the corpus result reader).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "base/error.h"

namespace attnscope {

// An integer in T's range; floats, booleans and strings are refused. `what` names the field.
template <typename T>
T json_integer(const nlohmann::json& v, const std::string& what) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u <= static_cast<uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if constexpr (std::is_signed_v<T>) {
      if (i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
          i <= static_cast<int64_t>(std::numeric_limits<T>::max()))
        return static_cast<T>(i);
    } else if (i >= 0 && static_cast<uint64_t>(i) <= static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      return static_cast<T>(i);
    }
  } else {
    throw Error(what + " must be an integer, found " + v.dump().substr(0, 40));
  }
  throw Error(what + " is out of range: " + v.dump());
}

// A number that fits a float (infinities and NaN are kept as they are).
inline float json_float(const nlohmann::json& v, const std::string& what) {
  if (!v.is_number()) throw Error(what + " must be a number");
  const double d = v.get<double>();
  if (std::isfinite(d) && std::abs(d) > std::numeric_limits<float>::max())
    throw Error(what + " is out of float range: " + v.dump());
  return static_cast<float>(d);
}

}  // namespace attnscope
