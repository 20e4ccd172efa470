#include "figures/text_matrices.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <iterator>

#include "analysis/attention_rollout.h"
#include "analysis/context_similarity.h"
#include "analysis/lens_maps.h"
#include "analysis/norm_based_attention.h"
#include "base/byte_size.h"
#include "base/error.h"
#include "figures/tensor_values.h"
#include "model/reproducible_products.h"
#include "tokenizer/piece_text.h"

namespace attnscope {

namespace {

// Each kind's words, in MatrixKind's order: its name (the command line's and the settings'), its
// title over a figure, and its symbol on a colorbar.
struct MatrixWords {
  const char *name, *title, *symbol;
};
constexpr MatrixWords kMatrixWords[] = {
    {"attention", "attention A", "A_ij"},
    {"similarity", "similarity S", "S_ij"},
    {"cosine", "cosine", "cos"},
    {"norm", "norm-based |A f|", "A_ij |f(x_j)|"},
    {"rollout", "attention rollout R", "R_ij"},
};
static_assert(std::size(kMatrixWords) == kMatrixKinds, "one row per MatrixKind");

const MatrixWords& words_of(MatrixKind kind) {
  static constexpr MatrixWords kUnknown{"?", "?", "?"};
  const auto k = static_cast<size_t>(kind);
  return k < std::size(kMatrixWords) ? kMatrixWords[k] : kUnknown;
}

}  // namespace

const char* matrix_title(MatrixKind kind) { return words_of(kind).title; }
const char* matrix_symbol(MatrixKind kind) { return words_of(kind).symbol; }
const char* matrix_name(MatrixKind kind) { return words_of(kind).name; }

MatrixKind matrix_by_name(const std::string& name) {
  for (int k = 0; k < kMatrixKinds; ++k)
    if (name == matrix_name(static_cast<MatrixKind>(k))) return static_cast<MatrixKind>(k);
  throw Error("unknown matrix \"" + name + "\": expected attention, similarity, cosine, norm or rollout");
}

AnalyzedTextView analyzed_text_view(const Encoding& encoding, const TextCaptures& captures,
                                    const TextAnalysis& analysis, const Transformer* model) {
  AnalyzedTextView view{encoding, captures, analysis};
  if (model && captures.remakes_maps()) {
    view.attention_blocks = recomputed_attention_blocks(*model, captures);
    view.attention_rows = whole_rows(view.attention_blocks);
  }
  return view;
}

AnalyzedTextView analyzed_text_view(const Encoding& encoding, const TextCaptures& captures,
                                    const TextAnalysis& analysis, const AttentionScores* scores) {
  AnalyzedTextView view{encoding, captures, analysis};
  if (scores && captures.remakes_maps()) {
    view.attention_blocks = recomputed_attention_blocks(*scores, captures);
    view.attention_rows = whole_rows(view.attention_blocks);
  }
  return view;
}

namespace {

// Refused in one line: what a long text cannot give (every map whole).
void require_maps(const AnalyzedTextView& text, MatrixKind kind) {
  if (!text.keeps_maps())
    throw Error(std::string("the ") + matrix_title(kind) +
                " of a long text needs every attention map, which it does not keep (see --maps-up-to)");
}

at::Tensor host_floats(const at::Tensor& t) { return t.to(at::kCPU, at::kFloat).contiguous(); }

void require_model(const AnalyzedTextView& text) {
  if (!text.attention_rows || !text.attention_blocks)
    throw Error("this long text's attention maps are made again by its model, which is not open");
}

at::Tensor recomputed_rows(const AnalyzedTextView& text, int layer, int head, RowSpan rows) {
  require_model(text);
  return host_floats(text.attention_rows(layer, head, rows));
}

// Rows of a long text's maps: recomputed attention (and the norm-based maps from it and the kept
// value norms), or S and cosine from the kept head outputs.
at::Tensor long_text_rows(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, RowSpan rows) {
  const TextAnalysis& a = text.analysis;
  const int64_t count = rows.size(a.length), first = head < 0 ? 0 : head, heads = head < 0 ? a.num_heads : 1;
  switch (kind) {
    case MatrixKind::Attention: return recomputed_rows(text, layer, head, rows);
    case MatrixKind::Norm: {
      const at::Tensor& norms = text.captures.value_norms;
      return norm_based_attention(recomputed_rows(text, layer, head, rows),
                                  norms.defined() ? norms[layer].narrow(0, first, heads) : norms);
    }
    case MatrixKind::Similarity:
      return host_floats(similarity_rows(a.head_outputs[layer].narrow(0, first, heads), rows.first, count));
    case MatrixKind::Cosine:
      return host_floats(cosine_rows(similarity_rows(a.head_outputs[layer].narrow(0, first, heads), rows.first, count),
                                     a.similarity.norms[layer].narrow(0, first, heads), rows.first));
    case MatrixKind::Rollout:
      if (const KeptRollout* kept = text.rollout_after(layer))
        return kept->matrix.narrow(0, rows.first, count).unsqueeze(0).expand({heads, -1, -1});
      require_maps(text, kind);
  }
  return {};
}

}  // namespace

at::Tensor head_rows(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, RowSpan rows) {
  if (!text.keeps_maps()) return long_text_rows(text, layer, head, kind, rows);
  const at::Tensor maps = layer_head_maps(text, layer, kind, false);
  const int64_t first = head < 0 ? 0 : head, heads = head < 0 ? maps.size(0) : 1;
  return host_floats(maps.narrow(0, first, heads).narrow(1, rows.first, rows.size(text.analysis.length)));
}

// [H, n, n]: every head's map of one kind in one layer (rollout: the layer's map for each head).
at::Tensor layer_head_maps(const AnalyzedTextView& text, int layer, MatrixKind kind, bool rollout_of_norm) {
  require_maps(text, kind);
  const auto& sim = text.analysis.similarity;
  const at::Tensor attention = text.captures.attention[layer];
  switch (kind) {
    case MatrixKind::Attention: return attention.to(at::kFloat);
    case MatrixKind::Similarity: return sim.similarity[layer].to(at::kFloat);
    case MatrixKind::Cosine: return cosine_from_similarity(sim.similarity[layer], sim.norms[layer]).to(at::kFloat);
    case MatrixKind::Norm: return head_norm_maps(text.captures, layer);
    case MatrixKind::Rollout:
      return rollout_maps(text.captures, layer + 1, rollout_of_norm)[layer].unsqueeze(0).expand(
          {attention.size(0), -1, -1});
  }
  return {};
}

// [n, n]: the layer's own map: the sum of its heads', the norm-based layer map, or the rollout.
at::Tensor layer_own_map(const AnalyzedTextView& text, int layer, MatrixKind kind, const at::Tensor& heads) {
  if (kind == MatrixKind::Norm) return layer_norm_maps(text.captures, layer, 1)[0];
  if (kind == MatrixKind::Rollout) return heads[0];
  return heads.sum(0);
}

at::Tensor layer_rows(const AnalyzedTextView& text, int layer, MatrixKind kind, const at::Tensor& heads, RowSpan rows) {
  if (kind == MatrixKind::Rollout) return heads[0];
  if (kind != MatrixKind::Norm) return heads.sum(0);
  const at::Tensor attention =
      text.keeps_maps()
          ? host_floats(text.captures.attention[layer].narrow(1, rows.first, rows.size(text.analysis.length)))
          : recomputed_rows(text, layer, -1, rows);
  const at::Tensor& gram = text.captures.value_gram;
  return layer_norm_based_attention(attention.unsqueeze(0), gram.defined() ? gram[layer].unsqueeze(0) : gram,
                                    {.causal = text.captures.visibility.causal, .first_row = rows.first})[0];
}

at::Tensor map_rows(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, RowSpan rows) {
  const at::Tensor heads = head_rows(text, layer, head, kind, rows);
  return head < 0 ? layer_rows(text, layer, kind, heads, rows) : heads[0];
}

LayerMapRows rollout_layer_rows(const AnalyzedTextView& text, bool rollout_of_norm) {
  require_model(text);
  if (!rollout_of_norm) return mean_attention_rows(text.attention_blocks);
  return [text](int64_t l, RowSpan rows) {
    const int layer = static_cast<int>(l);
    const AttentionBlock block = text.attention_blocks(layer, -1, rows);
    return LayerMapBlock{layer_norm_rows(block, text.captures, layer), block.keys};
  };
}

const KeptRollout* AnalyzedTextView::rollout_of(int layer, bool of_norm) const {
  const KeptRollout* kept = rollout_after(layer);
  return kept && kept->of_norm == of_norm ? kept : nullptr;
}

const KeptRollout* AnalyzedTextView::rollout_after(int layer) const {
  for (const KeptRollout& kept : rollouts)
    if (kept.layer == layer) return &kept;
  return nullptr;
}

namespace {

// The pass works in two n x n matrices and hands the last layer's over as one of them; each other
// layer asked is a copy kept beside them.
void require_kept_rollouts_fit(int64_t n, size_t kept) {
  require_rollout_fits(n);
  const double each = static_cast<double>(n) * static_cast<double>(n) * sizeof(float);
  const double bytes = rollout_in_blocks_bytes(n) + static_cast<double>(kept - 1) * each;
  if (bytes <= kMostRolloutBytes) return;
  const auto most = static_cast<int64_t>((kMostRolloutBytes - rollout_in_blocks_bytes(n)) / each) + 1;
  throw Error("the attention rollouts after " + std::to_string(kept) + " layers of a text of " + std::to_string(n) +
              " tokens would hold " + byte_size(bytes) + " (at most " + byte_size(kMostRolloutBytes) +
              "): ask for at most " + std::to_string(most) + " layers at a time");
}

}  // namespace

std::vector<KeptRollout> long_text_rollouts(const AnalyzedTextView& text, const std::vector<int>& layers, bool of_norm,
                                            const RolloutControl& control) {
  if (layers.empty() || !std::is_sorted(layers.begin(), layers.end()) ||
      std::adjacent_find(layers.begin(), layers.end()) != layers.end() || layers.front() < 0 ||
      layers.back() >= text.analysis.num_layers)
    throw Error("the layers of a rollout are asked each once, in order, within 0 .. " +
                std::to_string(text.analysis.num_layers - 1));
  const int64_t n = text.analysis.length;
  const int last = layers.back();
  require_kept_rollouts_fit(n, layers.size());
  const LayerMapRows maps = rollout_layer_rows(text, of_norm);
  const LayerMapRows checked = [&](int64_t l, RowSpan rows) {
    stop_if_stale(control.keep_going);
    return maps(l, rows);
  };
  std::vector<KeptRollout> kept;
  const RolloutOfLayer each = [&](int64_t l, const at::Tensor& rollout) {
    // R_last is handed back whole; the others' buffer is written over by the next layer.
    if (l < last && std::binary_search(layers.begin(), layers.end(), static_cast<int>(l)))
      kept.push_back({static_cast<int>(l), of_norm, rollout.clone()});
    if (control.progress) control.progress("rollout", static_cast<double>(l + 1) / static_cast<double>(last + 1));
  };
  at::Tensor after_last = rollout_in_blocks(checked, last, n, rows_per_block(text.analysis.num_heads * n), each);
  kept.push_back({last, of_norm, std::move(after_last)});
  return kept;
}

KeptRollout long_text_rollout(const AnalyzedTextView& text, int layer, bool of_norm, const RolloutControl& control) {
  return long_text_rollouts(text, {layer}, of_norm, control).front();
}

namespace {

// A long text's head (or summed) map, n x n, made a block of rows at a time (the layer's maps are
// never whole).
std::vector<float> long_text_matrix(const AnalyzedTextView& text, int layer, int head, MatrixKind kind) {
  const int64_t n = text.analysis.length, heads = head < 0 ? text.analysis.num_heads : 1;
  std::vector<float> out(static_cast<size_t>(n * n));
  for (const auto& [first, count] : row_blocks(n, rows_per_block(heads * n))) {
    const at::Tensor block = map_rows(text, layer, head, kind, {first, count}).contiguous();
    std::copy_n(block.data_ptr<float>(), count * n, out.begin() + first * n);
  }
  return out;
}

}  // namespace

std::vector<float> head_matrix(const AnalyzedTextView& text, int layer, int head, MatrixKind kind,
                               bool rollout_of_norm) {
  if (!text.keeps_maps() && kind == MatrixKind::Rollout) {
    if (const KeptRollout* kept = text.rollout_of(layer, rollout_of_norm)) return tensor_values(kept->matrix);
    return tensor_values(long_text_rollout(text, layer, rollout_of_norm).matrix);
  }
  if (!text.keeps_maps()) return long_text_matrix(text, layer, head, kind);
  const auto& sim = text.analysis.similarity;
  switch (kind) {
    case MatrixKind::Attention:
      return tensor_values(head < 0 ? text.captures.attention[layer].sum(0) : text.captures.attention[layer][head]);
    case MatrixKind::Similarity:
      return tensor_values(head < 0 ? text.analysis.summed_similarity(layer) : sim.similarity[layer][head]);
    case MatrixKind::Cosine:
      if (head < 0) return tensor_values(cosine_from_similarity(sim.similarity[layer], sim.norms[layer]).sum(0));
      return tensor_values(cosine_from_similarity(sim.similarity[layer][head], sim.norms[layer][head]));
    case MatrixKind::Norm:
    case MatrixKind::Rollout: {
      const at::Tensor heads = layer_head_maps(text, layer, kind, rollout_of_norm);
      return tensor_values(head < 0 ? layer_own_map(text, layer, kind, heads) : heads[head]);
    }
  }
  return {};
}

std::vector<std::string> token_labels(const Encoding& encoding) {
  std::vector<std::string> labels;
  for (const Token& t : encoding.tokens) labels.push_back(readable_piece(t.text));
  return labels;
}

FigureOptions resolved(const FigureOptions& options, const TextAnalysis& a) {
  FigureOptions o = options;
  if (o.layer < 0) o.layer = static_cast<int>(a.num_layers - 1);
  if (o.layer >= a.num_layers)
    throw Error("layer " + std::to_string(o.layer) + " is out of range 0 .. " + std::to_string(a.num_layers - 1));
  if (o.head >= a.num_heads || o.head < -1)
    throw Error("head " + std::to_string(o.head) + " is out of range 0 .. " + std::to_string(a.num_heads - 1));
  return o;
}

MatrixKind pairs_matrix(PairInput from) {
  switch (from) {
    case PairInput::Similarity: return MatrixKind::Similarity;
    case PairInput::Cosine: return MatrixKind::Cosine;
    case PairInput::Attention: return MatrixKind::Attention;
    case PairInput::Norm: return MatrixKind::Norm;
    case PairInput::Rollout: return MatrixKind::Rollout;
  }
  return MatrixKind::Similarity;
}

}  // namespace attnscope
