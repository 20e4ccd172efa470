#include "analysis/pairs_before.h"

#include <algorithm>

namespace attnscope {

int64_t pairs_before_row(int64_t n) {
  constexpr int64_t kStep = 64;
  return std::max<int64_t>(n - 1, 0) / kStep * kStep;
}

std::vector<int64_t> pairs_before_rows(int64_t n, int64_t step) {
  constexpr int64_t kMostEarlier = 8;
  const int64_t last = pairs_before_row(n);
  step = std::max<int64_t>(step, 1);
  while (last / step > kMostEarlier) step *= 2;
  std::vector<int64_t> rows;
  for (int64_t row = step; row < last; row += step) rows.push_back(row);
  if (last > 0) rows.push_back(last);
  return rows;
}

PairsBefore pairs_before_up_to(const PairsBefore& p, int64_t rows) {
  PairsBefore cut{p.tau, {}, {}, p.resumed_from, p.heads_resumed};
  for (const PairsAt& at : p.at)
    if (at.row <= rows) cut.at.push_back(at);
  if (p.norms.defined()) cut.norms = p.norms.narrow(1, 0, cut.row());
  return cut;
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
