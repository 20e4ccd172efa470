#pragma once
// Piece text -> id, looked up by a string_view of the text being cut, so that trying a candidate
// piece builds no string (a unigram word tries every substring up to the longest piece).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace attnscope {

struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

using StringIds = std::unordered_map<std::string, int32_t, StringViewHash, std::equal_to<>>;

}  // namespace attnscope
