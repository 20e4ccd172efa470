#pragma once
// Counts of float values in 2^18 bins by the leading bits of their ordered bit patterns (sign,
// exponent and the first mantissa bits), so that a percentile of more values than can be kept (a
// long text's whole map, n^2 cells) is read in one pass, to within a bin: about one part in a
// thousand of the value.
#include <cstdint>
#include <vector>

namespace attnscope {

class ValueHistogram {
 public:
  // `absolute`: counts |v| (a signed map's symmetric scale).
  explicit ValueHistogram(bool absolute);
  void add(const float* values, int64_t count);  // NaN is skipped
  void add(const ValueHistogram& other);         // what `other` counted (of the same kind)
  void add_zeros(int64_t count) { zeros_ += count; }
  int64_t count() const;
  // The k-th smallest value counted (k from 0), as the middle of its bin; 0 when none were counted.
  double kth(int64_t k) const;

 private:
  bool absolute_;
  int64_t count_ = 0;
  // Zeros apart from bins_: half of a decoder's map is zero, and counting them into one bin is a
  // chain of increments each waiting for the last (half of the count's time at 8,192 tokens).
  int64_t zeros_ = 0;
  std::vector<int64_t> bins_;
};

}  // namespace attnscope
