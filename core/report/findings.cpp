#include "report/findings.h"

#include <cmath>
#include <cstdio>

namespace attnscope {
namespace {

Measured undecided(std::string why) { return {"n/a", Verdict::Undecided, std::move(why)}; }

Verdict holds_if(bool condition) { return condition ? Verdict::Holds : Verdict::DoesNotHold; }

std::string printf_string(const char* format, double a, double b = 0, double c = 0) {
  char text[200];
  std::snprintf(text, sizeof text, format, a, b, c);
  return text;
}

Measured first_token_in_first_layer(const RunMeasures& m) {
  if (m.layers == 0 || m.texts == 0) return undecided("no texts");
  return {printf_string("%.3f (rank %.0f)", m.first_column_share[0], m.first_column_rank_in_first_layer),
          holds_if(m.first_column_rank_in_first_layer == 1),
          printf_string("uniform attention would give each of the %.0f positions %.3f", static_cast<double>(m.window),
                        1.0 / static_cast<double>(m.window))};
}

Measured diagonal_in_middle_layers(const RunMeasures& m) {
  if (m.layers < 3 || m.texts == 0) return undecided("fewer than three layers");
  const size_t middle = static_cast<size_t>(m.layers / 2), last = static_cast<size_t>(m.layers - 1);
  return {printf_string("%.3f in layer %.0f", m.band_share[middle], static_cast<double>(middle)),
          holds_if(m.band_share[middle] > m.band_share[0] && m.band_share[middle] > m.band_share[last]),
          printf_string("first layer %.3f, last layer %.3f", m.band_share[0], m.band_share[last])};
}

Measured punctuation_separators(const RunMeasures& m) {
  const MaybeValue share = m.layers ? m.separators_punctuation.back() : std::nullopt;
  if (!share)
    return undecided(
        "the run kept no separator classes (a result file from before they were kept, or no separators): run it "
        "again");
  const MaybeValue first = m.separators_first.back(), special = m.separators_special.back();
  return {format_value(share), holds_if(*share >= 0.5),
          "punctuation is " + format_value(m.punctuation_base) + " of all tokens; first token " + format_value(first) +
              ", other special tokens " + format_value(special) + " of the separators"};
}

Measured heads_peak_on_diagonal(const RunMeasures& m) {
  const auto heads = all_heads(m.rows_on_band);
  int diagonal = 0, defined = 0;
  for (const MaybeValue& v : heads)
    if (v) {
      ++defined;
      diagonal += *v >= 0.5;
    }
  if (defined == 0 || m.texts == 0) return undecided("no texts");
  return {printf_string("%.0f of %.0f heads", diagonal, defined), holds_if(diagonal >= 0.9 * defined),
          "median share of rows peaking on the band: " + format_value(median_of(heads))};
}

Measured repeat_specialists(const RunMeasures& m) {
  double low = INFINITY, high = -INFINITY;
  for (const MaybeValue& v : all_heads(m.repeat_share))
    if (v) {
      low = std::min(low, *v);
      high = std::max(high, *v);
    }
  if (!std::isfinite(low)) return undecided("no head had high-similarity pairs");
  return {printf_string("%.3f to %.3f", low, high), holds_if(high >= 0.5 && high - low >= 0.3),
          "median over heads " + format_value(median_of(all_heads(m.repeat_share)))};
}

Measured distances_shrink(const RunMeasures& m) {
  if (m.layers < 2 || !m.mean_distance.front() || !m.mean_distance.back())
    return undecided("the first or last layer had no pairs");
  const MaybeValue middle = m.mean_distance[static_cast<size_t>(m.layers / 2)];
  return {printf_string("%.1f -> %.1f tokens", *m.mean_distance.front(), *m.mean_distance.back()),
          holds_if(*m.mean_distance.back() < *m.mean_distance.front()),
          "middle layer " + format_value(middle, 1) + " tokens; window " + std::to_string(m.window)};
}

Measured last_layer_short_range(const RunMeasures& m) {
  if (m.layers == 0) return undecided("no layers");
  const double limit = 50.0 * static_cast<double>(m.window) / 128.0;
  int below = 0, defined = 0;
  for (const MaybeValue& v : m.head_distance.back())
    if (v) {
      ++defined;
      below += *v < limit;
    }
  if (defined == 0) return undecided("no head of the last layer had pairs");
  return {printf_string("%.0f of %.0f heads", below, static_cast<double>(m.heads)), holds_if(below >= m.heads - 1),
          printf_string("limit %.1f tokens (50 of 128, scaled to the window)", limit)};
}

Measured same_sentence_above_chance(const RunMeasures& m) {
  if (m.layers == 0 || !m.chance || !m.same_sentence_share.back()) return undecided("no sentences or no pairs");
  int above = 0;
  for (const MaybeValue& v : m.same_sentence_share) above += v && *v > *m.chance;
  return {printf_string("%.3f vs chance %.3f", *m.same_sentence_share.back(), *m.chance),
          holds_if(*m.same_sentence_share.back() > *m.chance),
          printf_string("%.0f of %.0f layers above chance", above, static_cast<double>(m.layers))};
}

Measured anchor_per_head(const RunMeasures& m) {
  const MaybeValue median = median_of(all_heads(m.anchor_share));
  if (!median) return undecided("no head had high-similarity pairs");
  return {format_value(median), holds_if(*median >= 0.5), "median over heads of the mean anchor share"};
}

Measured distinct_anchors(const RunMeasures& m) {
  const MaybeValue mean = mean_of(m.distinct_anchors);
  if (!mean || m.heads == 0) return undecided("no texts");
  const double share = *mean / static_cast<double>(m.heads);
  return {printf_string("%.2f of %.0f (%.2f)", *mean, static_cast<double>(m.heads), share), holds_if(share >= 0.75),
          "mean over layers and texts"};
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Holds: return "holds";
    case Verdict::DoesNotHold: return "does not hold";
    case Verdict::Undecided: return "undecided";
  }
  return "?";
}

std::string format_value(const MaybeValue& v, int digits) {
  if (!v) return "n/a";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, *v);
  return text;
}

const std::vector<Finding>& paper_findings() {
  static const std::vector<Finding> findings = {
      {"first-token", "In the first layer, the token that draws the most attention is the first one ([CLS]).",
       "Fig. 4 (layer 0)", "[CLS] is the most attended token (no number given)",
       "the first position's share of the first layer's summed attention, and its rank among the positions",
       "the first position ranks first", "2", first_token_in_first_layer},
      {"middle-diagonal", "In the middle layers, attention centres on the diagonal.", "Fig. 4 (layer 6)",
       "attention centred on the diagonal in layer 6 (no number given)",
       "the share of the middle layer's summed attention on the band |j - i| <= 1",
       "the middle layer's band share exceeds the first and the last layer's", "2", diagonal_in_middle_layers},
      {"separators", "In the last layer, attention gathers on sentence separators: punctuation.", "Fig. 4, 5",
       "the separators are \",\" and \".\" (no share given)",
       "the share of the last layer's separators (tau_sep on its summed map, per text) that are punctuation",
       "at least half of them are punctuation", "3", punctuation_separators},
      {"summed-diagonal",
       "Summed over texts, every head's attention sits on the diagonal and its neighbours (with the separator "
       "columns zeroed).",
       "Fig. 2, 3", "every head (no number given)",
       "heads in which at least half of the rows of the summed map, separator columns zeroed, peak at |j - i| <= 1",
       "at least 90% of the heads", "3", heads_peak_on_diagonal},
      {"repeat-heads", "Heads specialise: some bind repeated tokens, others different tokens.", "Fig. 6a",
       "repeat shares spread over heads (no number given)", "the lowest and highest mean repeat share over heads",
       "the highest is at least 0.5 and 0.3 above the lowest", "6", repeat_specialists},
      {"distances", "Pair distances shrink from long-range in the first layer to short-range in the last.",
       "Fig. 7, 13", "layer 1 spread, layer 6 shortest, layer 11 slightly longer (no numbers given)",
       "the mean distance of the high-similarity pairs, pooled over the layer's heads and texts, first and last layer",
       "the last layer's mean is below the first layer's", "13", distances_shrink},
      {"last-layer-range",
       "In the last layer, every head but one pairs tokens less than 50 positions apart on average.", "Fig. 7",
       "11 of 12 heads below 50 (head 8 above)",
       "heads of the last layer whose pooled mean pair distance is below 50 tokens (of 128)",
       "all heads but at most one", "7", last_layer_short_range},
      {"same-sentence", "Heads bind tokens of the same sentence more often than chance.", "Fig. 8",
       "above 33%, with 3-4 sentences per 128 tokens",
       "the last layer's same-sentence share (mean over heads and texts) against the chance level",
       "above the chance level", "8", same_sentence_above_chance},
      {"anchor", "Each head binds one anchor token with its context.", "Fig. 11a",
       "the vast majority of a head's pairs include its most common token (no number given)",
       "the median over heads of the mean share of pairs that include the anchor", "at least 0.5", "11",
       anchor_per_head},
      {"distinct-anchors", "The heads of a layer each have their own anchor token.", "Fig. 11b",
       "close to one distinct anchor per head (no number given)",
       "distinct anchor tokens among a layer's heads, mean over layers and texts, against H", "at least 0.75 H", "11",
       distinct_anchors},
  };
  return findings;
}

}  // namespace attnscope
