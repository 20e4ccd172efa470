#include "base/base64.h"

#include <array>
#include <cstdint>

#include "base/error.h"

namespace attnscope {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> make_reverse() {
  std::array<int8_t, 256> table{};
  table.fill(-1);
  for (int i = 0; i < 64; ++i) table[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}
constexpr auto kReverse = make_reverse();

}  // namespace

std::string base64_encode(std::span<const std::byte> bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint32_t>(bytes[i]) << 16) | (static_cast<uint32_t>(bytes[i + 1]) << 8) |
                       static_cast<uint32_t>(bytes[i + 2]);
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], kAlphabet[v & 63]};
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint32_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<uint32_t>(bytes[i + 1]) << 8;
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], rest == 2 ? kAlphabet[(v >> 6) & 63] : '=', '='};
  }
  return out;
}

size_t base64_decoded_size(std::string_view text) {
  if (text.size() % 4 != 0)
    throw Error("base64 data has a length of " + std::to_string(text.size()) + ", not a multiple of 4");
  if (text.empty()) return 0;
  const size_t pad = (text.back() == '=') + (text[text.size() - 2] == '=');
  return text.size() / 4 * 3 - pad;
}

void base64_decode_into(std::string_view text, std::span<std::byte> out) {
  if (out.size() != base64_decoded_size(text)) throw Error("base64 data does not decode to the bytes expected");
  std::byte* o = out.data();
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<size_t>(k)];
      const int8_t digit = (k >= 4 - pad) ? 0 : kReverse[static_cast<uint8_t>(c)];
      if (digit < 0)
        throw Error("base64 data has an invalid character at position " + std::to_string(i + static_cast<size_t>(k)));
      v = (v << 6) | static_cast<uint32_t>(digit);
    }
    *o++ = static_cast<std::byte>(v >> 16);
    if (pad < 2) *o++ = static_cast<std::byte>((v >> 8) & 0xFF);
    if (pad < 1) *o++ = static_cast<std::byte>(v & 0xFF);
  }
}

std::vector<std::byte> base64_decode(std::string_view text) {
  std::vector<std::byte> out(base64_decoded_size(text));
  base64_decode_into(text, out);
  return out;
}

}  // namespace attnscope
