#pragma once
// What a corpus run accumulates over its texts (METHOD.md "Over a corpus"). Its size depends on
// the model and the window only (L, H, N), never on the number of texts.
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "analysis/text_analysis.h"
#include "model/captures.h"

namespace attnscope {

// A per-text statistic of every head, as a distribution over texts.
struct StatDistribution {
  at::Tensor histogram;  // [L, H, bins] int64: texts whose value falls in [b / bins, (b + 1) / bins) (1 in the last)
  at::Tensor undefined;  // [L, H] int64: texts where the head had no pairs
  at::Tensor sum;        // [L, H] float64: sum of the defined values, for the mean
};

class CorpusAccumulator {
 public:
  static constexpr int kBins = 100;
  // The statistics kept as distributions, in this order.
  enum Stat { RepeatShare, SameSentenceRepeatShare, SameSentenceShare, AnchorShare, MeanDistance, kStats };
  static const char* stat_name(int stat);

  CorpusAccumulator(int64_t layers, int64_t heads, int64_t window, c10::Device device = c10::Device(c10::kCPU));

  // Adds a whole batch as the forward left it (padded), with the analysis of each of its texts:
  // on the host, one pass over each head's maps adds the batch to its sums, heads in parallel.
  void add_batch(const BatchCaptures& batch, const std::vector<TextAnalysis>& analyses);
  // The same through tensor operations only: what add_batch does when the maps or the sums are
  // not on the host; public so that tests check both ways against each other on the CPU.
  void add_batch_with_tensor_ops(const BatchCaptures& batch, const std::vector<TextAnalysis>& analyses);

  int64_t layers() const { return layers_; }
  int64_t heads() const { return heads_; }
  int64_t window() const { return window_; }
  int64_t texts() const { return texts_; }

  // Sums over texts, position by position ([L, H, N, N], float64, on the host).
  at::Tensor attention_sum() const;
  at::Tensor attention_without_separators() const;                // separator columns zeroed in each text
  at::Tensor attention_without_separators_and_diagonals() const;  // ... and j - i in {-1, 0, 1}
  at::Tensor mask_sum() const;                                    // sum of the high-similarity masks B

  at::Tensor distance_histogram;   // [L, H, N] int64: pair distances pooled over texts
  StatDistribution stats[kStats];  // MeanDistance's histogram has bins of window / kBins tokens
  at::Tensor distinct_anchors;     // [L, H + 1] int64: texts with k distinct anchors in layer l
  at::Tensor chance_histogram;     // [bins] int64: the texts' same-sentence chance levels
  at::Tensor chance_sum;           // [] float64
  at::Tensor pair_count_sum;       // [L, H] int64
  // Where attention gathers, by token class (tokenizer/token_class.h): the separators of each
  // layer's summed map [L, kTokenClasses], and every token of the windows [kTokenClasses], the
  // base rate they are read against. Zero in result files written before they were kept.
  at::Tensor separator_classes, token_classes;
  bool has_token_classes() const;

  // Every accumulated tensor by the name it has in the result file, for saving and resuming.
  std::vector<std::pair<std::string, at::Tensor*>> tensors();
  void set_texts(int64_t texts) { texts_ = texts; }  // when resuming from a saved run

 private:
  void check_batch(const BatchCaptures& batch, const std::vector<TextAnalysis>& analyses) const;
  // The three attention sums of head l * H + h over the batch, in one pass over its maps
  // (contiguous float32 maps and sums on the host).
  void add_head_attention(const BatchCaptures& batch, const std::vector<TextAnalysis>& analyses, int64_t lh);
  // The same sums for all heads with tensor operations, wherever the maps and sums live.
  void add_attention_with_tensor_ops(const BatchCaptures& batch, const std::vector<TextAnalysis>& analyses);
  // Counters of one head of one text (masks, distances, statistics), then those of the text as a
  // whole (distinct anchors per layer, chance level, the count of texts).
  void add_head_counts(const TextAnalysis& analysis, int64_t lh);
  void add_text_counts(const TextAnalysis& analysis);
  void add_token_classes(const TextAnalysis& analysis);

  int64_t layers_, heads_, window_, texts_ = 0;
  // On the compute device; "without separators" and "without diagonals" are the sum minus what
  // was removed from each text, so only the few removed entries are added per text.
  at::Tensor attention_sum_, removed_separators_, removed_diagonals_, mask_sum_;
};

}  // namespace attnscope
