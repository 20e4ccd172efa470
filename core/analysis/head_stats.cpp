#include "analysis/head_stats.h"

#include <algorithm>
#include <map>

namespace attnscope {

TextFacts text_facts(std::vector<int32_t> ids, std::vector<int> sentence, std::vector<bool> takes_part) {
  TextFacts f{std::move(ids), std::move(sentence), std::move(takes_part), 0, std::nullopt, {}};
  std::map<int, int64_t> per_sentence;
  for (size_t i = 0; i < f.takes_part.size(); ++i)
    if (f.takes_part[i]) {
      ++f.participants;
      ++per_sentence[f.sentence[i]];
    }
  const int64_t m = f.participants, all = m * (m - 1) / 2;
  int64_t same = 0;
  for (const auto& [s, k] : per_sentence) same += k * (k - 1) / 2;
  if (all > 0) f.chance_same_sentence = static_cast<double>(same) / static_cast<double>(all);
  return f;
}

HeadStats stats_from_counts(const PairCounts& c, const TextFacts& f) {
  HeadStats s;
  const int64_t m = f.participants, all = m * (m - 1) / 2;
  s.count = static_cast<int>(c.count);
  if (all > 0) s.density = static_cast<double>(c.count) / static_cast<double>(all);
  s.chance_same_sentence = f.chance_same_sentence;
  s.distance_histogram = c.distance_histogram;
  s.distance_histogram.resize(std::max<size_t>(f.ids.size(), 1), 0);
  if (c.count == 0) return s;
  const double p = static_cast<double>(c.count);
  s.repeat_share = static_cast<double>(c.repeats) / p;
  s.same_sentence_repeat_share = static_cast<double>(c.same_sentence_repeats) / p;
  s.same_sentence_share = static_cast<double>(c.same_sentence) / p;
  s.mean_distance = static_cast<double>(c.distance_sum) / p;
  const auto anchor = std::max_element(c.degree.begin(), c.degree.end()) - c.degree.begin();  // first maximum
  s.anchor_index = static_cast<int>(anchor);
  s.anchor_id = f.ids[static_cast<size_t>(anchor)];
  s.anchor_share = c.degree[static_cast<size_t>(anchor)] / p;
  return s;
}

HeadStats head_stats(const std::vector<TokenPair>& pairs, const TextFacts& f) {
  PairCounts c(f.ids.size());
  for (const TokenPair& pair : pairs) {
    const auto i = static_cast<size_t>(pair.i), j = static_cast<size_t>(pair.j);
    const bool repeat = f.ids[i] == f.ids[j], together = f.sentence[i] == f.sentence[j];
    ++c.count;
    c.repeats += repeat;
    c.same_sentence_repeats += repeat && together;
    c.same_sentence += together;
    c.distance_sum += pair.j - pair.i;
    ++c.distance_histogram[static_cast<size_t>(pair.j - pair.i)];
    ++c.degree[i];
    ++c.degree[j];
  }
  return stats_from_counts(c, f);
}

}  // namespace attnscope
