#pragma once
// Counts as people read them: "33,550,336" (a long text's pairs), and a count with its noun,
// singular for one: "1 token", "8,192 tokens", "2 windows".
#include <cstdint>
#include <string>

namespace attnscope {

inline std::string digit_groups(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

inline std::string count(uint64_t n, const char* noun) { return digit_groups(n) + " " + noun + (n == 1 ? "" : "s"); }

}  // namespace attnscope
