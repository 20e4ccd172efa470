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
// The bytes `text` decodes to (three for each four characters, less its padding), and the same
// decoding written into `out`, which must hold exactly that many: a tensor's own memory, not a
// copy of it (a corpus result at 512 tokens holds 1.2 GB of them).
size_t base64_decoded_size(std::string_view text);
void base64_decode_into(std::string_view text, std::span<std::byte> out);

}  // namespace attnscope
