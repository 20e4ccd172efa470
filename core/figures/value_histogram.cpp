#include "figures/value_histogram.h"

#include <bit>
#include <cmath>

namespace attnscope {
namespace {

constexpr int kBinBits = 18;

// Unsigned keys in the order of the values: negative numbers' bits reversed, positive ones' with the sign set.
uint32_t ordered(float v) {
  const auto bits = std::bit_cast<uint32_t>(v);
  return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

float from_ordered(uint32_t key) { return std::bit_cast<float>(key & 0x80000000u ? key & 0x7fffffffu : ~key); }

}  // namespace

ValueHistogram::ValueHistogram(bool absolute) : absolute_(absolute), bins_(size_t{1} << kBinBits, 0) {}

void ValueHistogram::add(const float* values, int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    const float v = absolute_ ? std::fabs(values[k]) : values[k];
    if (std::bit_cast<uint32_t>(v) == 0) {  // +0, counted apart: see zeros_
      ++zeros_;
      continue;
    }
    if (std::isnan(v)) continue;
    ++bins_[ordered(v) >> (32 - kBinBits)];
    ++count_;
  }
}

void ValueHistogram::add(const ValueHistogram& other) {
  for (size_t bin = 0; bin < bins_.size(); ++bin) bins_[bin] += other.bins_[bin];
  count_ += other.count_;
  zeros_ += other.zeros_;
}

int64_t ValueHistogram::count() const { return count_ + zeros_; }

double ValueHistogram::kth(int64_t k) const {
  const size_t zero_bin = ordered(0.0f) >> (32 - kBinBits);
  int64_t seen = 0;
  for (size_t bin = 0; bin < bins_.size(); ++bin) {
    seen += bins_[bin] + (bin == zero_bin ? zeros_ : 0);
    if (seen > k) {
      const uint32_t low = static_cast<uint32_t>(bin) << (32 - kBinBits), half = uint32_t{1} << (31 - kBinBits);
      return from_ordered(low | half);
    }
  }
  return 0;
}

}  // namespace attnscope
