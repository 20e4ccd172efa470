#include "report/run_measures.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "corpus/corpus_summary.h"

namespace attnscope {
namespace {

LayerHeadValues per_head(const CorpusAccumulator& a, const std::function<MaybeValue(int64_t, int64_t)>& value) {
  LayerHeadValues out(static_cast<size_t>(a.layers()));
  for (int64_t l = 0; l < a.layers(); ++l)
    for (int64_t h = 0; h < a.heads(); ++h) out[static_cast<size_t>(l)].push_back(value(l, h));
  return out;
}

void measure_attention(const CorpusAccumulator& a, RunMeasures& m) {
  const at::Tensor sums = a.attention_sum();
  const at::Tensor columns = layer_column_shares(sums), band = band_shares(sums.sum(1, true));
  const at::Tensor peaks = rows_peaking_on_band(a.attention_without_separators());
  for (int64_t l = 0; l < a.layers(); ++l) {
    m.first_column_share.push_back(columns[l][0].item<double>());
    m.band_share.push_back(band[l][0].item<double>());
  }
  m.first_column_rank_in_first_layer = 1 + static_cast<int>((columns[0] > columns[0][0]).sum().item<int64_t>());
  m.rows_on_band = per_head(a, [&](int64_t l, int64_t h) -> MaybeValue { return peaks[l][h].item<double>(); });
}

void measure_separators(const CorpusAccumulator& a, RunMeasures& m) {
  for (int64_t l = 0; l < a.layers(); ++l) {
    m.separators_first.push_back(separator_class_share(a, l, TokenClass::First));
    m.separators_special.push_back(separator_class_share(a, l, TokenClass::Special));
    m.separators_punctuation.push_back(separator_class_share(a, l, TokenClass::Punctuation));
    m.separators_word.push_back(separator_class_share(a, l, TokenClass::Word));
  }
  m.punctuation_base = token_class_share(a, TokenClass::Punctuation);
}

void measure_pairs(const CorpusAccumulator& a, RunMeasures& m) {
  m.repeat_share =
      per_head(a, [&](int64_t l, int64_t h) { return head_stat_mean(a, CorpusAccumulator::RepeatShare, l, h); });
  m.anchor_share =
      per_head(a, [&](int64_t l, int64_t h) { return head_stat_mean(a, CorpusAccumulator::AnchorShare, l, h); });
  m.head_distance = per_head(a, [&](int64_t l, int64_t h) { return head_pooled_mean_distance(a, l, h); });
  const LayerHeadValues same =
      per_head(a, [&](int64_t l, int64_t h) { return head_stat_mean(a, CorpusAccumulator::SameSentenceShare, l, h); });
  for (int64_t l = 0; l < a.layers(); ++l) {
    m.mean_distance.push_back(layer_pooled_mean_distance(a, l));
    m.same_sentence_share.push_back(mean_of(same[static_cast<size_t>(l)]));
    m.distinct_anchors.push_back(mean_distinct_anchors(a, l));
  }
  m.chance = chance_mean(a);
}

}  // namespace

RunMeasures measure_run(const CorpusAccumulator& corpus, std::string name) {
  RunMeasures m;
  m.name = std::move(name);
  m.layers = corpus.layers();
  m.heads = corpus.heads();
  m.window = corpus.window();
  m.texts = corpus.texts();
  measure_attention(corpus, m);
  measure_separators(corpus, m);
  measure_pairs(corpus, m);
  return m;
}

MaybeValue mean_of(const std::vector<MaybeValue>& values) {
  double sum = 0;
  int count = 0;
  for (const MaybeValue& v : values)
    if (v) {
      sum += *v;
      ++count;
    }
  if (count == 0) return std::nullopt;
  return sum / count;
}

MaybeValue median_of(std::vector<MaybeValue> values) {
  std::vector<double> defined;
  for (const MaybeValue& v : values)
    if (v) defined.push_back(*v);
  if (defined.empty()) return std::nullopt;
  std::sort(defined.begin(), defined.end());
  const size_t k = defined.size() / 2;
  return defined.size() % 2 ? defined[k] : (defined[k - 1] + defined[k]) / 2;
}

std::vector<MaybeValue> all_heads(const LayerHeadValues& values) {
  std::vector<MaybeValue> out;
  for (const auto& layer : values) out.insert(out.end(), layer.begin(), layer.end());
  return out;
}

}  // namespace attnscope
