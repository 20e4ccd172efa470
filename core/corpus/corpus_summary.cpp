#include "corpus/corpus_summary.h"

#include <ATen/ATen.h>

namespace attnscope {
namespace {

std::optional<double> ratio(double numerator, double denominator) {
  if (denominator <= 0) return std::nullopt;
  return numerator / denominator;
}

// The mean of a distance histogram (entry d: pairs at distance d).
std::optional<double> histogram_mean(const at::Tensor& histogram) {
  const at::Tensor h = histogram.to(at::kDouble);
  const at::Tensor d = at::arange(h.size(-1), h.options());
  return ratio((h * d).sum().item<double>(), h.sum().item<double>());
}

// [N, N] true where |j - i| <= 1.
at::Tensor band_mask(int64_t n, const at::TensorOptions& options) {
  const at::Tensor i = at::arange(n, options.dtype(at::kLong));
  return (i.unsqueeze(1) - i.unsqueeze(0)).abs() <= 1;
}

}  // namespace

std::optional<double> head_stat_mean(const CorpusAccumulator& a, int stat, int64_t l, int64_t h) {
  const StatDistribution& s = a.stats[stat];
  return ratio(s.sum[l][h].item<double>(), static_cast<double>(a.texts() - s.undefined[l][h].item<int64_t>()));
}

std::optional<double> chance_mean(const CorpusAccumulator& a) {
  return ratio(a.chance_sum.item<double>(), static_cast<double>(a.chance_histogram.sum().item<int64_t>()));
}

std::optional<double> head_pooled_mean_distance(const CorpusAccumulator& a, int64_t l, int64_t h) {
  return histogram_mean(a.distance_histogram[l][h]);
}

std::optional<double> layer_pooled_mean_distance(const CorpusAccumulator& a, int64_t l) {
  return histogram_mean(a.distance_histogram[l].sum(0));
}

std::optional<double> mean_distinct_anchors(const CorpusAccumulator& a, int64_t l) {
  const at::Tensor counts = a.distinct_anchors[l].to(at::kDouble);
  const at::Tensor k = at::arange(counts.size(0), counts.options());
  return ratio((counts * k).sum().item<double>(), static_cast<double>(a.texts()));
}

at::Tensor band_shares(const at::Tensor& sums) {
  const at::Tensor band = band_mask(sums.size(-1), sums.options());
  const at::Tensor total = sums.sum({-2, -1});
  return at::where(total > 0, (sums * band).sum({-2, -1}) / total.clamp_min(1e-300), at::zeros_like(total));
}

at::Tensor rows_peaking_on_band(const at::Tensor& sums) {
  const int64_t n = sums.size(-1);
  const at::Tensor peak = sums.argmax(-1);  // [L, H, N]
  const at::Tensor rows = at::arange(n, peak.options());
  const at::Tensor on_band = (peak - rows).abs() <= 1;
  const at::Tensor live = sums.sum(-1) > 0;
  const at::Tensor live_count = live.sum(-1).to(at::kDouble);
  return (on_band & live).sum(-1).to(at::kDouble) / live_count.clamp_min(1);
}

at::Tensor layer_column_shares(const at::Tensor& sums) {
  const at::Tensor columns = sums.sum({1, 2});  // [L, N]
  return columns / columns.sum(-1, true).clamp_min(1e-300);
}

std::optional<double> separator_class_share(const CorpusAccumulator& a, int64_t l, TokenClass c) {
  if (!a.has_token_classes()) return std::nullopt;
  const at::Tensor row = a.separator_classes[l];
  return ratio(static_cast<double>(row[static_cast<int>(c)].item<int64_t>()),
               static_cast<double>(row.sum().item<int64_t>()));
}

std::optional<double> token_class_share(const CorpusAccumulator& a, TokenClass c) {
  if (!a.has_token_classes()) return std::nullopt;
  return ratio(static_cast<double>(a.token_classes[static_cast<int>(c)].item<int64_t>()),
               static_cast<double>(a.token_classes.sum().item<int64_t>()));
}

}  // namespace attnscope
