#include "figures/query_key_figure.h"

#include <ATen/ATen.h>

#include <cmath>

#include "base/error.h"
#include "figures/tensor_values.h"

namespace attnscope {
namespace {

HeatmapPanel vectors(std::string title, const at::Tensor& rows, std::vector<std::string> labels, std::string bar,
                     const FigureOptions& o) {
  HeatmapPanel p;
  p.title = std::move(title);
  p.rows = static_cast<int>(rows.size(0));
  p.cols = static_cast<int>(rows.size(1));
  p.values = tensor_values(rows);
  p.row_labels = std::move(labels);
  for (int c = 0; c < p.cols; ++c) p.col_labels.push_back(std::to_string(c));
  p.cols_counted = true;
  p.x_label = "dimension of the head";
  p.colormap = ColormapId::Diverging;
  p.color_scale = color_scale_for(p.values, o.scale == ValueScale::Log ? ValueScale::Linear : o.scale, true);
  p.colorbar_label = std::move(bar);
  return p;
}

}  // namespace

Figure query_key_figure(const AnalyzedTextView& text, const FigureOptions& options) {
  const FigureOptions o = resolved(options, text.analysis);
  if (!text.captures.queries.defined())
    throw Error(
        "the query/key view needs the queries and keys, which this run did not capture (a word-level view has none)");
  const int n = static_cast<int>(text.encoding.size()), head = std::max(0, o.head);
  if (o.query < 0 || o.query >= n)
    throw Error("query token " + std::to_string(o.query) + " is out of range 0 .. " + std::to_string(n - 1));
  const at::Tensor q = text.captures.queries[o.layer][head][o.query].to(at::kFloat);                 // [d]
  const at::Tensor keys = text.captures.keys[o.layer][text.captures.key_head(head)].to(at::kFloat);  // [n, d]
  const at::Tensor attention = head_rows(text, o.layer, head, MatrixKind::Attention, {o.query, 1})[0][0];
  const int key = o.key >= 0 && o.key < n ? o.key : static_cast<int>(attention.argmax().item<int64_t>());
  const std::vector<std::string> tokens = token_labels(text.encoding);
  Figure f = titled_figure("queries and keys of layer " + std::to_string(o.layer) + ", head " + std::to_string(head) +
                               ": token " + std::to_string(o.query) + " (" + tokens[static_cast<size_t>(o.query)] +
                               ") attending",
                           o.caption, 2);
  HeatmapPanel query = vectors("query q_i", q.unsqueeze(0), {tokens[static_cast<size_t>(o.query)]}, "q", o);
  HeatmapPanel all_keys = vectors("keys k_j", keys, tokens, "k", o);
  HeatmapPanel products =
      // Not "the score times sqrt(d)": a family may scale otherwise (Gemma's query_pre_attn_scalar),
      // cap the score or add a bias by distance (MPNet, DeBERTa).
      vectors("q_i * k_j by dimension (a row sums to q_i . k_j)", keys * q.unsqueeze(0), tokens, "q k", o);
  for (int c = 0; c < all_keys.cols; ++c)
    all_keys.outlined.emplace_back(key, c), products.outlined.emplace_back(key, c);
  BarPanel row{
      "attention A_ij of token " + std::to_string(o.query) + " (the outlined key: " + std::to_string(key) + ")",
      "attended token j",
      "A_ij",
      tokens,
      {},
      std::max(1, n / 24),
      1.0};
  std::vector<double> weights;
  for (const float a : tensor_values(attention)) weights.push_back(a);
  row.series.push_back(BarSeries{"A_ij", std::move(weights), palette_color(0), false});
  f.panels = {query, all_keys, products, row};
  return f;
}

}  // namespace attnscope
