#include "corpus/corpus_accumulator.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <set>

#include "error.h"

namespace attnscope {
namespace {

int64_t bin_of(double value, double top) {
  return std::clamp<int64_t>(static_cast<int64_t>(value / top * CorpusAccumulator::kBins), 0, CorpusAccumulator::kBins - 1);
}

}  // namespace

const char* CorpusAccumulator::stat_name(int stat) {
  static const char* names[] = {"repeat_share", "same_sentence_repeat_share", "same_sentence_share", "anchor_share", "mean_distance"};
  return names[stat];
}

CorpusAccumulator::CorpusAccumulator(int64_t layers, int64_t heads, int64_t window, c10::Device device)
    : layers_(layers), heads_(heads), window_(window) {
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
}

void CorpusAccumulator::add_batch(const BatchCaptures& batch, const std::vector<TextAnalysis>& analyses) {
  const int64_t B = static_cast<int64_t>(batch.lengths.size());
  const int64_t P = batch.attention.front().size(-1);
  if (static_cast<int64_t>(batch.attention.size()) != layers_ || batch.attention.front().size(1) != heads_ || P > window_ ||
      static_cast<int64_t>(analyses.size()) != B)
    throw Error("a batch of " + std::to_string(P) + " positions does not fit the corpus accumulators (window " + std::to_string(window_) + ")");
  // Rows of pad positions hold no attention of a real token: weigh them 0. Pad columns are 0 already.
  at::Tensor rows;
  if (std::any_of(batch.lengths.begin(), batch.lengths.end(), [&](int64_t n) { return n < P; }))
    rows = (at::arange(P).unsqueeze(0) < at::tensor(batch.lengths).unsqueeze(1)).to(batch.attention.front().options()).view({B, 1, P, 1});
  for (int64_t l = 0; l < layers_; ++l) {
    const at::Tensor a = batch.attention[static_cast<size_t>(l)];
    attention_sum_[l].narrow(1, 0, P).narrow(2, 0, P).add_((rows.defined() ? a * rows : a).sum(0).to(attention_sum_.device()));
  }
  for (int64_t b = 0; b < B; ++b) {
    const int64_t n = batch.lengths[static_cast<size_t>(b)];
    std::vector<at::Tensor> maps;
    for (const auto& a : batch.attention) maps.push_back(a[b].narrow(1, 0, n).narrow(2, 0, n));
    add_details(maps, analyses[static_cast<size_t>(b)]);
  }
}

void CorpusAccumulator::add_details(const std::vector<at::Tensor>& layer_maps, const TextAnalysis& a) {
  const int64_t n = layer_maps.front().size(-1);
  // Separator columns (of the text's segment map, as for segments), then the three diagonals
  // j - i in {-1, 0, 1} outside those columns: small slices of each layer's maps.
  const auto& seps = a.segment_separators.positions;
  const auto device = attention_sum_.device();
  at::Tensor keep = at::ones({n}, at::TensorOptions().dtype(at::kDouble).device(device));
  at::Tensor columns;
  if (!seps.empty()) {
    columns = at::tensor(std::vector<int64_t>(seps.begin(), seps.end())).to(device);
    keep.index_fill_(0, columns, 0.0);
  }
  for (int64_t l = 0; l < layers_; ++l) {
    const at::Tensor maps = layer_maps[static_cast<size_t>(l)].to(device);
    if (columns.defined())
      removed_separators_[l].narrow(1, 0, n).narrow(2, 0, n).index_add_(2, columns, maps.index_select(2, columns).to(at::kDouble));
    for (int64_t offset = -1; offset <= 1; ++offset) {
      const int64_t len = n - std::abs(offset);
      if (len <= 0) continue;
      const at::Tensor kept = keep.narrow(0, std::max<int64_t>(offset, 0), len);  // column j of each diagonal entry
      removed_diagonals_[l].narrow(1, 0, n).narrow(2, 0, n).diagonal(offset, 1, 2).add_(maps.diagonal(offset, 1, 2) * kept);
    }
  }

  // The host-side counters are contiguous CPU tensors: written through pointers, not per-element ops.
  double* mask = mask_sum_.data_ptr<double>();
  int64_t* distances = distance_histogram.data_ptr<int64_t>();
  int64_t* pair_counts = pair_count_sum.data_ptr<int64_t>();
  int64_t* anchor_counts = distinct_anchors.data_ptr<int64_t>();
  for (int64_t l = 0; l < layers_; ++l) {
    std::set<int32_t> anchors;
    for (int64_t h = 0; h < heads_; ++h) {
      const int64_t lh = l * heads_ + h;
      const HeadAnalysis& head = a.head(l, h);
      double* m = mask + lh * window_ * window_;
      for (const TokenPair& p : head.pairs) {
        m[p.i * window_ + p.j] += 1;
        m[p.j * window_ + p.i] += 1;
      }
      const HeadStats& s = head.stats;
      for (int64_t d = 0; d < n; ++d) distances[lh * window_ + d] += s.distance_histogram[static_cast<size_t>(d)];
      pair_counts[lh] += s.count;
      const std::optional<double> values[kStats] = {s.repeat_share, s.same_sentence_repeat_share, s.same_sentence_share, s.anchor_share,
                                                    s.mean_distance};
      for (int k = 0; k < kStats; ++k) {
        if (!values[k]) {
          ++stats[k].undefined.data_ptr<int64_t>()[lh];
          continue;
        }
        ++stats[k].histogram.data_ptr<int64_t>()[lh * kBins + bin_of(*values[k], k == MeanDistance ? static_cast<double>(window_) : 1.0)];
        stats[k].sum.data_ptr<double>()[lh] += *values[k];
      }
      if (s.anchor_id) anchors.insert(*s.anchor_id);
    }
    ++anchor_counts[l * (heads_ + 1) + static_cast<int64_t>(anchors.size())];
  }
  if (a.facts.chance_same_sentence) {
    ++chance_histogram.data_ptr<int64_t>()[bin_of(*a.facts.chance_same_sentence, 1.0)];
    *chance_sum.data_ptr<double>() += *a.facts.chance_same_sentence;
  }
  ++texts_;
}

at::Tensor CorpusAccumulator::attention_sum() const { return attention_sum_.cpu(); }
at::Tensor CorpusAccumulator::attention_without_separators() const { return (attention_sum_ - removed_separators_).cpu(); }
at::Tensor CorpusAccumulator::attention_without_separators_and_diagonals() const {
  return (attention_sum_ - removed_separators_ - removed_diagonals_).cpu();
}
at::Tensor CorpusAccumulator::mask_sum() const { return mask_sum_; }

std::vector<std::pair<std::string, at::Tensor*>> CorpusAccumulator::tensors() {
  std::vector<std::pair<std::string, at::Tensor*>> out = {
      {"attention_sum", &attention_sum_},          {"attention_removed_separators", &removed_separators_},
      {"attention_removed_diagonals", &removed_diagonals_}, {"mask_sum", &mask_sum_},
      {"distance_histogram", &distance_histogram}, {"distinct_anchors", &distinct_anchors},
      {"chance_histogram", &chance_histogram},     {"chance_sum", &chance_sum},
      {"pair_count_sum", &pair_count_sum}};
  for (int k = 0; k < kStats; ++k) {
    const std::string name = stat_name(k);
    out.push_back({name + "_histogram", &stats[k].histogram});
    out.push_back({name + "_undefined", &stats[k].undefined});
    out.push_back({name + "_sum", &stats[k].sum});
  }
  return out;
}

}  // namespace attnscope
