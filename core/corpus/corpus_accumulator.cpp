#include "corpus/corpus_accumulator.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <set>

#include "base/byte_size.h"
#include "base/error.h"
#include "model/capture_plan.h"

namespace attnscope {
namespace {

int64_t bin_of(double value, double top) {
  return std::clamp<int64_t>(static_cast<int64_t>(value / top * CorpusAccumulator::kBins), 0,
                             CorpusAccumulator::kBins - 1);
}

// The four sums of maps ([L, H, W, W], float64) are the accumulators' size: a corpus of long
// windows cannot be summed (a ModernBERT-base-sized model at 8,192 tokens: 141 GB); refused in one
// line past 80% of the machine's memory, before any of it is taken.
void check_sums_fit(int64_t layers, int64_t heads, int64_t window) {
  const double bytes = 4.0 * 8.0 * static_cast<double>(layers * heads) * static_cast<double>(window) *
                       static_cast<double>(window),
               memory = static_cast<double>(physical_memory());
  if (bytes <= 0.8 * memory) return;
  throw Error("a corpus run sums four " + std::to_string(layers) + " x " + std::to_string(heads) + " stacks of " +
              std::to_string(window) + " x " + std::to_string(window) + " maps (Fig. 2, 3, 10): " + byte_size(bytes) +
              ", more than this machine's " + byte_size(memory) +
              " allow; take a shorter --window, or run one long text with analyze");
}

}  // namespace

const char* CorpusAccumulator::stat_name(int stat) {
  static const char* names[] = {"repeat_share", "same_sentence_repeat_share", "same_sentence_share", "anchor_share",
                                "mean_distance"};
  return names[stat];
}

CorpusAccumulator::CorpusAccumulator(int64_t layers, int64_t heads, int64_t window, c10::Device device)
    : layers_(layers), heads_(heads), window_(window) {
  check_sums_fit(layers, heads, window);
  const auto on_device = at::TensorOptions().dtype(at::kDouble).device(device);
  const auto counts = at::TensorOptions().dtype(at::kLong);
  attention_sum_ = at::zeros({layers, heads, window, window}, on_device);
  removed_separators_ = at::zeros_like(attention_sum_);
  removed_diagonals_ = at::zeros_like(attention_sum_);
  mask_sum_ = at::zeros({layers, heads, window, window}, at::kDouble);  // filled from host pair lists
  distance_histogram = at::zeros({layers, heads, window}, counts);
  for (auto& s : stats) {
    s.histogram = at::zeros({layers, heads, kBins}, counts);
    s.undefined = at::zeros({layers, heads}, counts);
    s.sum = at::zeros({layers, heads}, at::kDouble);
  }
  distinct_anchors = at::zeros({layers, heads + 1}, counts);
  chance_histogram = at::zeros({kBins}, counts);
  chance_sum = at::zeros({}, at::kDouble);
  pair_count_sum = at::zeros({layers, heads}, counts);
  separator_classes = at::zeros({layers, kTokenClasses}, counts);
  token_classes = at::zeros({kTokenClasses}, counts);
}

bool CorpusAccumulator::has_token_classes() const { return texts_ == 0 || token_classes.sum().item<int64_t>() > 0; }

void CorpusAccumulator::add_batch(const BatchCaptures& batch, const std::vector<TextAnalysis>& analyses) {
  check_batch(batch, analyses);
  const bool on_host = attention_sum_.device().is_cpu() &&
                       std::all_of(batch.attention.begin(), batch.attention.end(), [](const at::Tensor& a) {
                         return a.device().is_cpu() && a.scalar_type() == at::kFloat && a.is_contiguous();
                       });
  if (!on_host) add_attention_with_tensor_ops(batch, analyses);
  // Heads are independent: each one's sums and counters are its own slices.
  at::parallel_for(0, layers_ * heads_, 1, [&](int64_t first, int64_t last) {
    for (int64_t lh = first; lh < last; ++lh) {
      if (on_host) add_head_attention(batch, analyses, lh);
      for (const TextAnalysis& analysis : analyses) add_head_counts(analysis, lh);
    }
  });
  for (const TextAnalysis& analysis : analyses) add_text_counts(analysis);
}

void CorpusAccumulator::add_batch_with_tensor_ops(const BatchCaptures& batch,
                                                  const std::vector<TextAnalysis>& analyses) {
  check_batch(batch, analyses);
  add_attention_with_tensor_ops(batch, analyses);
  for (int64_t lh = 0; lh < layers_ * heads_; ++lh)
    for (const TextAnalysis& analysis : analyses) add_head_counts(analysis, lh);
  for (const TextAnalysis& analysis : analyses) add_text_counts(analysis);
}

void CorpusAccumulator::check_batch(const BatchCaptures& batch, const std::vector<TextAnalysis>& analyses) const {
  const int64_t P = batch.attention.empty() ? 0 : batch.attention.front().size(-1);
  if (static_cast<int64_t>(batch.attention.size()) != layers_ || batch.attention.front().size(1) != heads_ ||
      P > window_ || analyses.size() != batch.lengths.size())
    throw Error("a batch of " + std::to_string(P) + " positions does not fit the corpus accumulators (window " +
                std::to_string(window_) + ")");
}

void CorpusAccumulator::add_head_attention(const BatchCaptures& batch, const std::vector<TextAnalysis>& analyses,
                                           int64_t lh) {
  const int64_t l = lh / heads_, h = lh % heads_, N = window_;
  const at::Tensor& maps = batch.attention[static_cast<size_t>(l)];  // [B, H, P, P]
  const int64_t P = maps.size(-1);
  const auto map_of = [&](size_t b) { return maps.data_ptr<float>() + (static_cast<int64_t>(b) * heads_ + h) * P * P; };
  // The plain sum row by row, the batch's rows added in a small buffer first: the [N, N] sum is
  // read and written once per batch, not once per text. Rows of pads hold no attention of a
  // real token; columns of pads are 0.
  double* sum = attention_sum_.data_ptr<double>() + lh * N * N;
  std::vector<double> row_sum(static_cast<size_t>(P));
  for (int64_t i = 0; i < P; ++i) {
    std::fill(row_sum.begin(), row_sum.end(), 0.0);
    for (size_t b = 0; b < analyses.size(); ++b) {
      if (i >= batch.lengths[b]) continue;
      const float* row = map_of(b) + i * P;
      for (int64_t j = 0; j < P; ++j) row_sum[static_cast<size_t>(j)] += row[j];
    }
    for (int64_t j = 0; j < P; ++j) sum[i * N + j] += row_sum[static_cast<size_t>(j)];
  }
  // The few removed entries of each text: separator columns, then near-diagonals outside them.
  double* separators = removed_separators_.data_ptr<double>() + lh * N * N;
  double* diagonals = removed_diagonals_.data_ptr<double>() + lh * N * N;
  std::vector<uint8_t> is_separator(static_cast<size_t>(P));
  for (size_t b = 0; b < analyses.size(); ++b) {
    const int64_t n = batch.lengths[b];
    const float* a = map_of(b);
    const std::vector<int>& columns = analyses[b].segment_separators.positions;
    std::fill(is_separator.begin(), is_separator.end(), 0);
    for (int j : columns) is_separator[static_cast<size_t>(j)] = 1;
    for (int64_t i = 0; i < n; ++i) {
      for (int j : columns) separators[i * N + j] += a[i * P + j];
      for (int64_t j = std::max<int64_t>(i - 1, 0); j <= std::min(i + 1, n - 1); ++j)
        if (!is_separator[static_cast<size_t>(j)]) diagonals[i * N + j] += a[i * P + j];
    }
  }
}

void CorpusAccumulator::add_attention_with_tensor_ops(const BatchCaptures& batch,
                                                      const std::vector<TextAnalysis>& analyses) {
  const int64_t B = static_cast<int64_t>(batch.lengths.size());
  const int64_t P = batch.attention.front().size(-1);
  // Every text's removed entries as weights over its positions [B, 1, P, P], so that each layer
  // takes three reductions over the batch instead of many small operations per text: separator
  // columns (of the text's segment map, as for segments), then the three diagonals j - i in
  // {-1, 0, 1} outside those columns. Rows of pads weigh 0; their columns are 0 already.
  const auto device = batch.attention.front().device();
  const auto real = at::TensorOptions().dtype(at::kFloat).device(device);
  std::vector<float> separator_columns(static_cast<size_t>(B * P), 0.0f);
  for (int64_t b = 0; b < B; ++b)
    for (int j : analyses[static_cast<size_t>(b)].segment_separators.positions)
      separator_columns[static_cast<size_t>(b * P + j)] = 1.0f;
  const at::Tensor separator = at::from_blob(separator_columns.data(), {B, 1, P}, at::kFloat).to(device);
  const at::Tensor pads = real_rows(batch);  // undefined when no text of the batch is padded
  const at::Tensor rows = pads.defined() ? pads : at::ones({B, P, 1}, real);
  const at::Tensor offsets = at::arange(P, real).unsqueeze(0) - at::arange(P, real).unsqueeze(1);  // j - i
  const at::Tensor near = offsets.abs().le(1).to(at::kFloat);
  const at::Tensor in_separators = (rows * separator).unsqueeze(1);
  const at::Tensor on_diagonals = (rows * near * (1 - separator) * rows.transpose(1, 2)).unsqueeze(1);
  for (int64_t l = 0; l < layers_; ++l) {
    const at::Tensor a = batch.attention[static_cast<size_t>(l)].to(at::kFloat);
    const auto add = [&](const at::Tensor& sum, const at::Tensor& batch_sum) {
      sum[l].narrow(1, 0, P).narrow(2, 0, P).add_(batch_sum.to(sum.device(), at::kDouble));
    };
    add(attention_sum_, (pads.defined() ? a * rows.unsqueeze(1) : a).sum(0));
    add(removed_separators_, (a * in_separators).sum(0));
    add(removed_diagonals_, (a * on_diagonals).sum(0));
  }
}

void CorpusAccumulator::add_head_counts(const TextAnalysis& a, int64_t lh) {
  // The host-side counters are contiguous CPU tensors: written through pointers, not per-element ops.
  const HeadAnalysis& head = a.heads.at(static_cast<size_t>(lh));
  double* mask = mask_sum_.data_ptr<double>() + lh * window_ * window_;
  head.pairs.for_each([&](int i, int j) {
    mask[i * window_ + j] += 1;
    mask[j * window_ + i] += 1;
  });
  const HeadStats& s = head.stats;
  int64_t* distances = distance_histogram.data_ptr<int64_t>() + lh * window_;
  for (int64_t d = 0; d < a.length; ++d) distances[d] += s.distance_histogram[static_cast<size_t>(d)];
  pair_count_sum.data_ptr<int64_t>()[lh] += s.count;
  const std::optional<double> values[kStats] = {s.repeat_share, s.same_sentence_repeat_share, s.same_sentence_share,
                                                s.anchor_share, s.mean_distance};
  for (int k = 0; k < kStats; ++k) {
    if (!values[k]) {
      ++stats[k].undefined.data_ptr<int64_t>()[lh];
      continue;
    }
    ++stats[k]
          .histogram
          .data_ptr<int64_t>()[lh * kBins + bin_of(*values[k], k == MeanDistance ? static_cast<double>(window_) : 1.0)];
    stats[k].sum.data_ptr<double>()[lh] += *values[k];
  }
}

void CorpusAccumulator::add_text_counts(const TextAnalysis& a) {
  int64_t* anchor_counts = distinct_anchors.data_ptr<int64_t>();
  for (int64_t l = 0; l < layers_; ++l) {
    std::set<int32_t> anchors;
    for (int64_t h = 0; h < heads_; ++h)
      if (const auto& id = a.head(l, h).stats.anchor_id) anchors.insert(*id);
    ++anchor_counts[l * (heads_ + 1) + static_cast<int64_t>(anchors.size())];
  }
  add_token_classes(a);
  if (a.facts.chance_same_sentence) {
    ++chance_histogram.data_ptr<int64_t>()[bin_of(*a.facts.chance_same_sentence, 1.0)];
    *chance_sum.data_ptr<double>() += *a.facts.chance_same_sentence;
  }
  ++texts_;
}

void CorpusAccumulator::add_token_classes(const TextAnalysis& a) {
  const auto& classes = a.facts.classes;
  if (classes.empty()) return;
  int64_t* separators = separator_classes.data_ptr<int64_t>();
  for (int64_t l = 0; l < layers_; ++l)
    for (int p : a.layers[static_cast<size_t>(l)].separators.positions)
      ++separators[l * kTokenClasses + static_cast<int>(classes[static_cast<size_t>(p)])];
  int64_t* tokens = token_classes.data_ptr<int64_t>();
  for (TokenClass c : classes) ++tokens[static_cast<int>(c)];
}

at::Tensor CorpusAccumulator::attention_sum() const { return attention_sum_.cpu(); }
at::Tensor CorpusAccumulator::attention_without_separators() const {
  return (attention_sum_ - removed_separators_).cpu();
}
at::Tensor CorpusAccumulator::attention_without_separators_and_diagonals() const {
  return (attention_sum_ - removed_separators_ - removed_diagonals_).cpu();
}
at::Tensor CorpusAccumulator::mask_sum() const { return mask_sum_; }

std::vector<std::pair<std::string, at::Tensor*>> CorpusAccumulator::tensors() {
  std::vector<std::pair<std::string, at::Tensor*>> out = {{"attention_sum", &attention_sum_},
                                                          {"attention_removed_separators", &removed_separators_},
                                                          {"attention_removed_diagonals", &removed_diagonals_},
                                                          {"mask_sum", &mask_sum_},
                                                          {"distance_histogram", &distance_histogram},
                                                          {"distinct_anchors", &distinct_anchors},
                                                          {"chance_histogram", &chance_histogram},
                                                          {"chance_sum", &chance_sum},
                                                          {"pair_count_sum", &pair_count_sum},
                                                          {"separator_classes", &separator_classes},
                                                          {"token_classes", &token_classes}};
  for (int k = 0; k < kStats; ++k) {
    const std::string name = stat_name(k);
    out.push_back({name + "_histogram", &stats[k].histogram});
    out.push_back({name + "_undefined", &stats[k].undefined});
    out.push_back({name + "_sum", &stats[k].sum});
  }
  return out;
}

}  // namespace attnscope
