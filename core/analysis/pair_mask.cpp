#include "analysis/pair_mask.h"

#include <bit>
#include <cstring>
#include <string>

#include "base/error.h"

namespace attnscope {

PairMask::PairMask(int n, std::vector<uint8_t> bits) : n_(n), bits_(std::move(bits)) {
  if (n < 0 || bits_.size() != static_cast<size_t>((triangle(n) + 7) / 8))
    throw Error("a pair mask of " + std::to_string(n) + " tokens needs " +
                std::to_string((triangle(std::max(n, 0)) + 7) / 8) + " bytes, found " + std::to_string(bits_.size()));
  const int64_t used = triangle(n);
  if (used % 8 && !bits_.empty())
    bits_.back() &= static_cast<uint8_t>((1u << (used % 8)) - 1);  // bits past the end mean nothing
  for (uint8_t b : bits_) count_ += std::popcount(b);
}

bool PairMask::test(int i, int j) const {
  if (i == j) return false;
  if (i > j) std::swap(i, j);
  const int64_t k = index(n_, i, j);
  return bits_[static_cast<size_t>(k >> 3)] >> (k & 7) & 1;
}

// Eight flags at a time where a whole byte of the mask is covered: a byte-at-a-time loop, each
// write depending on the last one to the same byte, was 9% of the analysis at 512 tokens.
void PairMask::set_row(int i, const uint8_t* flags) {
  int64_t k = index(n_, i, i + 1);
  const int count = n_ - i - 1;
  uint8_t* bits = bits_.data();
  int64_t set = 0;
  const auto one = [&](int j) {
    bits[k >> 3] |= static_cast<uint8_t>(flags[j] << (k & 7));
    set += flags[j];
    ++k;
  };
  int j = 0;
  for (; j < count && (k & 7) != 0; ++j) one(j);
  for (; j + 8 <= count; j += 8, k += 8) {
    uint64_t eight = 0;  // flag m in byte m (little-endian), each 0 or 1
    std::memcpy(&eight, flags + j, 8);
    if constexpr (std::endian::native == std::endian::big) eight = __builtin_bswap64(eight);
    // The multiplication moves byte m's low bit to bit 56 + m, and nothing else there.
    const auto byte = static_cast<uint8_t>((eight * 0x0102040810204080ULL) >> 56);
    bits[k >> 3] |= byte;
    set += std::popcount(byte);
  }
  for (; j < count; ++j) one(j);
  count_ += set;
}

}  // namespace attnscope
