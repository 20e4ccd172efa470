#pragma once
// Standard base64 (RFC 4648, with padding), used to store float32 matrices compactly and
// exactly in JSON result files.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

std::string base64_encode(std::span<const std::byte> bytes);
// Throws attnscope::Error on a character outside the alphabet or a wrong length.
std::vector<std::byte> base64_decode(std::string_view text);

}  // namespace attnscope
