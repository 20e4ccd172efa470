#include "analysis/pairs_before.h"

#include <algorithm>

namespace attnscope {

int64_t pairs_before_row(int64_t n) {
  constexpr int64_t kStep = 64;
  return std::max<int64_t>(n - 1, 0) / kStep * kStep;
}

PairCounts counts_of_length(const PairCounts& counts, int64_t n) {
  PairCounts out = counts;
  out.distance_histogram.resize(static_cast<size_t>(std::max<int64_t>(n, 1)), 0);
  out.degree.resize(static_cast<size_t>(n), 0);
  return out;
}

void add_counts(PairCounts& a, const PairCounts& b) {
  a.count += b.count;
  a.repeats += b.repeats;
  a.same_sentence += b.same_sentence;
  a.same_sentence_repeats += b.same_sentence_repeats;
  a.distance_sum += b.distance_sum;
  for (size_t d = 0; d < std::min(a.distance_histogram.size(), b.distance_histogram.size()); ++d)
    a.distance_histogram[d] += b.distance_histogram[d];
  for (size_t k = 0; k < std::min(a.degree.size(), b.degree.size()); ++k) a.degree[k] += b.degree[k];
}

}  // namespace attnscope
