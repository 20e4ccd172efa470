#include "analysis/pair_mask.h"

#include <bit>
#include <string>

#include "error.h"

namespace attnscope {

PairMask::PairMask(int n, std::vector<uint8_t> bits) : n_(n), bits_(std::move(bits)) {
  if (n < 0 || bits_.size() != static_cast<size_t>((triangle(n) + 7) / 8))
    throw Error("a pair mask of " + std::to_string(n) + " tokens needs " + std::to_string((triangle(std::max(n, 0)) + 7) / 8) +
                " bytes, found " + std::to_string(bits_.size()));
  const int64_t used = triangle(n);
  if (used % 8 && !bits_.empty()) bits_.back() &= static_cast<uint8_t>((1u << (used % 8)) - 1);  // bits past the end mean nothing
  for (uint8_t b : bits_) count_ += std::popcount(b);
}

bool PairMask::test(int i, int j) const {
  if (i == j) return false;
  if (i > j) std::swap(i, j);
  const int64_t k = index(n_, i, j);
  return bits_[static_cast<size_t>(k >> 3)] >> (k & 7) & 1;
}

void PairMask::set_row(int i, const uint8_t* flags) {
  int64_t k = index(n_, i, i + 1);
  for (int j = i + 1; j < n_; ++j, ++k)
    if (flags[j - i - 1]) {
      bits_[static_cast<size_t>(k >> 3)] |= static_cast<uint8_t>(1u << (k & 7));
      ++count_;
    }
}

}  // namespace attnscope
