#pragma once
// A count with its noun, singular for one: "1 token", "31 tokens", "2 windows".
#include <cstdint>
#include <string>

namespace attnscope::cli {

inline std::string count(uint64_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

}  // namespace attnscope::cli
