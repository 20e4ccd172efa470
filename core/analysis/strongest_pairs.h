#pragma once
// The strongest pairs of one head, strongest first. A long text's head binds millions of pairs
// (one of SmolLM2's at 4,096 tokens: 2,166,205), and head_pairs lists them in the text's order;
// sorting them all to show the strongest takes 12 bytes a pair (gigabytes at 32,768 tokens). This
// walks every pair once, valued as head_pairs values it, and keeps the `top` strongest seen so far.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/text_analysis.h"
#include "base/progress.h"

namespace attnscope {

// Which of a head's pairs a table lists where it lists fewer than the head has: the first in the
// text (head_pairs), or the strongest (strongest_head_pairs).
enum class PairListing { FirstInText, Strongest };

struct StrongestPairsRun {
  // The head's lens map made whole already, as TextAnalysis::pair_map makes it (the explorer's
  // rollout after the layer, minutes to make again); undefined: made here where it must be.
  at::Tensor map;
  // The share of the head's rows walked, in [0, 1] (the walk of a long text's head takes seconds).
  std::function<void(double fraction)> progress;
  KeepGoing keep_going;
};

// Whether pair `p` comes before `q` in the strongest-first order: the larger value, then the
// earlier i, then the earlier j.
bool stronger_pair(const TokenPair& p, const TokenPair& q);

// The `top` pairs of the head with the largest values, in stronger_pair's order; every pair where
// the head has at most `top`.
std::vector<TokenPair> strongest_head_pairs(const TextAnalysis& analysis, int64_t layer, int64_t head, int64_t top,
                                            const StrongestPairsRun& run = {});

}  // namespace attnscope
