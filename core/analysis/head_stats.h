#pragma once
// Statistics of one head's pairs on one text (METHOD.md table). A statistic of the pairs is
// std::nullopt, not 0, when the head has no pairs.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/pair_mask.h"

#include "tokenizer/token_class.h"

namespace attnscope {

// What the statistics need to know of the text, computed once for all heads.
struct TextFacts {
  std::vector<int32_t> ids;                    // token ids
  std::vector<int> sentence;                   // sentence number per token
  std::vector<bool> takes_part;                // false for tokens left out (special tokens, when excluded)
  int participants = 0;                        // tokens that take part
  std::optional<double> chance_same_sentence;  // share of all pairs i < j of participants in one sentence
  std::vector<TokenClass> classes;             // per token; empty where the analysis had no encoding
};

TextFacts text_facts(std::vector<int32_t> ids, std::vector<int> sentence, std::vector<bool> takes_part);

struct HeadStats {
  int count = 0;                       // |P|
  std::optional<double> density;       // |P| / (m (m - 1) / 2), m participants
  std::optional<double> repeat_share;  // pairs with the same token id
  std::optional<double> same_sentence_repeat_share;
  std::optional<double> same_sentence_share;
  std::optional<double> chance_same_sentence;  // the text's chance level, beside the share
  std::optional<double> mean_distance;         // mean of j - i
  std::vector<int64_t> distance_histogram;     // [d] = pairs with j - i = d, d = 0 .. n - 1
  std::optional<int> anchor_index;             // the position in most pairs (ties: lowest)
  std::optional<int32_t> anchor_id;
  std::optional<double> anchor_share;  // deg(anchor) / |P|
};

// What the statistics are made of, counted pair by pair (by the pair scan of high_similarity,
// which never builds a pair list, or from a list by head_stats).
struct PairCounts {
  int64_t count = 0, repeats = 0, same_sentence_repeats = 0, same_sentence = 0, distance_sum = 0;
  std::vector<int64_t> distance_histogram;  // n entries
  std::vector<int32_t> degree;              // per position: the pairs that include it
  explicit PairCounts(size_t n = 0) : distance_histogram(std::max<size_t>(n, 1), 0), degree(n, 0) {}
};

HeadStats stats_from_counts(const PairCounts& counts, const TextFacts& facts);
// The definition, pair by pair: the same numbers as stats_from_counts of the scan.
HeadStats head_stats(const std::vector<TokenPair>& pairs, const TextFacts& facts);

}  // namespace attnscope
