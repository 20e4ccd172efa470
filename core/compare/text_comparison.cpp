#include "compare/text_comparison.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <utility>

#include "analysis/context_similarity.h"
#include "analysis/high_similarity.h"
#include "compare/head_matching.h"
#include "compare/linear_cka.h"
#include "compare/map_pair_sums.h"
#include "base/error.h"
#include "model/reproducible_products.h"

namespace attnscope {
namespace {

void check_run(const ComparedRun& r, const char* name) {
  const auto n = static_cast<int64_t>(r.encoding.size());
  if (r.analysis.length != n || r.captures.length != n || !r.captures.head_outputs.defined() ||
      r.captures.head_outputs.dim() != 4 || r.captures.head_outputs.size(2) != n ||
      r.analysis.num_layers != r.captures.num_layers || r.analysis.num_heads != r.captures.num_heads)
    throw Error(std::string("run ") + name + ": its tokens, captures and analysis do not belong together");
}

std::optional<double> difference(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

StatsChange stats_change(const HeadStats& a, const HeadStats& b, const Encoding& ea, const Encoding& eb) {
  StatsChange c;
  c.count = b.count - a.count;
  c.density = difference(a.density, b.density);
  c.repeat_share = difference(a.repeat_share, b.repeat_share);
  c.same_sentence_share = difference(a.same_sentence_share, b.same_sentence_share);
  c.mean_distance = difference(a.mean_distance, b.mean_distance);
  c.anchor_share = difference(a.anchor_share, b.anchor_share);
  if (a.anchor_index && b.anchor_index)  // by entry, not id: the two runs may have two vocabularies
    c.same_anchor =
        ea.tokens[static_cast<size_t>(*a.anchor_index)].text == eb.tokens[static_cast<size_t>(*b.anchor_index)].text;
  return c;
}

// The measures that need the same tokens, for every head of the common grid (layer-major).
struct SameTokenMeasures {
  std::optional<MapPairSums> attention;  // none when a run holds no attention maps
  MapPairSums similarity;
  // The pairs both heads have, counted from the rows of S the sums read (a long text's: its masks
  // are not kept, and making them again made each head's S a second time); empty when whole.
  std::vector<int64_t> pairs_in_both;
};

bool keeps_whole(const ComparedRun& r) { return r.analysis.similarity.similarity.defined(); }
bool has_attention(const ComparedRun& r) { return r.captures.attention.defined() || bool(r.attention_blocks); }

// Heads [first, first + count) of a layer.
struct HeadSpan {
  int64_t first = 0, count = 1;
};

// Rows of some heads' maps of a layer ([1, heads, rows, keys]), read from the whole maps (every key)
// or made again from a long text's queries and keys (over the keys the rows may see), the same values.
AttentionBlock attention_block_of(const ComparedRun& r, int64_t layer, HeadSpan heads, RowSpan rows) {
  const int64_t n = r.analysis.length, count = rows.size(n);
  if (r.captures.attention.defined()) {
    const at::Tensor maps =
        r.captures.attention[layer].narrow(0, heads.first, heads.count).narrow(1, rows.first, count);
    return {maps.unsqueeze(0), {rows.first, count}, {0, n}, n};
  }
  if (heads.count == 1) return r.attention_blocks(layer, heads.first, rows);
  AttentionBlock block = r.attention_blocks(layer, -1, rows);
  block.maps = block.maps.narrow(1, heads.first, heads.count);
  return block;
}

// Both sides' rows over the keys either holds ([heads, rows, keys] each): a key neither holds
// weighs 0 on both sides and adds exactly nothing to the sums.
std::pair<at::Tensor, at::Tensor> attention_rows_of_both(const ComparedRun& a, const ComparedRun& b, int64_t layer,
                                                         HeadSpan heads, RowSpan rows) {
  const AttentionBlock x = attention_block_of(a, layer, heads, rows), y = attention_block_of(b, layer, heads, rows);
  const int64_t first = std::min(x.keys.first, y.keys.first),
                end = std::max(x.keys.first + x.keys.count, y.keys.first + y.keys.count);
  return {x.over({first, end - first})[0], y.over({first, end - first})[0]};
}

at::Tensor similarity_rows_of(const ComparedRun& r, int64_t layer, HeadSpan heads, RowSpan rows) {
  const int64_t count = rows.size(r.analysis.length);
  if (keeps_whole(r))
    return r.analysis.similarity.similarity[layer].narrow(0, heads.first, heads.count).narrow(1, rows.first, count);
  return similarity_rows(r.analysis.head_outputs[layer].narrow(0, heads.first, heads.count), rows.first, count);
}

SameTokenMeasures whole_maps(const ComparedRun& a, const ComparedRun& b, int64_t L, int64_t H) {
  const auto grid = [&](const at::Tensor& t) { return t.slice(0, 0, L).slice(1, 0, H).flatten(0, 1); };
  SameTokenMeasures m;
  if (a.captures.attention.defined() && b.captures.attention.defined())  // a result file may hold no maps
    m.attention = map_pair_sums(grid(a.captures.attention), grid(b.captures.attention));
  m.similarity = map_pair_sums(grid(a.analysis.similarity.similarity), grid(b.analysis.similarity.similarity));
  return m;
}

std::vector<uint8_t> takes_part(const TextAnalysis& analysis) {
  return {analysis.facts.takes_part.begin(), analysis.facts.takes_part.end()};
}

bool pairs_of_s(const ComparedRun& r) {
  return r.analysis.settings.pairs_from == PairInput::Similarity || r.analysis.settings.pairs_from == PairInput::Cosine;
}

// The rows a side's pairs come from, given those rows of its S ([H, rows, n]): S's, or its cosine's
// (a long text's pairs come from one or the other).
at::Tensor pair_source_of(const ComparedRun& r, int64_t layer, const at::Tensor& s, int64_t first) {
  if (r.analysis.settings.pairs_from != PairInput::Cosine) return s;
  return cosine_rows(s, r.analysis.similarity.norms[layer].to(s.device()), first);
}

// Adds to `both` (H entries) the pairs each head of A and B shares in these rows of S ([H, rows, n] a side).
void add_pairs_in_both(const ComparedRun& a, const ComparedRun& b, int64_t layer, const at::Tensor& rows_a,
                       const at::Tensor& rows_b, int64_t first, const std::array<std::vector<uint8_t>, 2>& takes,
                       int64_t* both) {
  const at::Tensor host_a = pair_source_of(a, layer, rows_a, first).to(at::kCPU, at::kFloat).contiguous(),
                   host_b = pair_source_of(b, layer, rows_b, first).to(at::kCPU, at::kFloat).contiguous();
  const int64_t H = host_a.size(0), count = host_a.size(1), n = host_a.size(2);
  at::parallel_for(0, H, 1, [&](int64_t begin, int64_t end) {
    for (int64_t h = begin; h < end; ++h) {
      const PairRule rule_a(a.analysis.settings.tau, a.analysis.head(layer, h).scale, takes[0].data()),
          rule_b(b.analysis.settings.tau, b.analysis.head(layer, h).scale, takes[1].data());
      both[h] += pairs_in_both(host_a.data_ptr<float>() + h * count * n, rule_a,
                               host_b.data_ptr<float>() + h * count * n, rule_b, first, count, n);
    }
  });
}

// The steps of a comparison that take long, counted for CompareSettings::progress, each one
// checked with its keep_going first: a long text's layers, then the heads whose masks are made again.
class CompareSteps {
 public:
  CompareSteps(const CompareSettings& settings, int64_t steps) : settings_(settings), steps_(steps) {}
  void begin() const { stop_if_stale(settings_.keep_going); }
  void done() {
    ++done_;
    if (settings_.progress && steps_ > 0)
      settings_.progress("compare", static_cast<double>(done_) / static_cast<double>(steps_));
  }

 private:
  const CompareSettings& settings_;
  int64_t steps_ = 0, done_ = 0;
};

// A long text on either side: a layer's maps a block of rows at a time (some 32 MB of floats a side).
SameTokenMeasures maps_in_blocks(const ComparedRun& a, const ComparedRun& b, int64_t L, int64_t H, int64_t block_rows,
                                 CompareSteps& steps) {
  const int64_t n = a.analysis.length;
  const auto heads = static_cast<size_t>(L * H);
  // Pairs from a lens are not in S's rows: their masks count them instead (kept where the run kept
  // them, as `compare` asks; else made again from each head's map: TextAnalysis::pair_mask).
  const bool of_s = pairs_of_s(a) && pairs_of_s(b);
  SameTokenMeasures m{std::nullopt, MapPairSums::zeros(heads), std::vector<int64_t>(of_s ? heads : 0, 0)};
  if (has_attention(a) && has_attention(b)) m.attention = MapPairSums::zeros(heads);
  const std::array<std::vector<uint8_t>, 2> takes{takes_part(a.analysis), takes_part(b.analysis)};
  for (int64_t l = 0; l < L; ++l) {
    steps.begin();
    for (const auto& [first, count] : row_blocks(n, rows_per_block(H * n, block_rows))) {
      const RowSpan rows{first, count};
      const auto at = static_cast<size_t>(l * H);
      if (m.attention) {
        const auto [rows_a, rows_b] = attention_rows_of_both(a, b, l, {0, H}, rows);
        m.attention->add(at, map_pair_sums(rows_a, rows_b));
      }
      const at::Tensor s_a = similarity_rows_of(a, l, {0, H}, rows), s_b = similarity_rows_of(b, l, {0, H}, rows);
      m.similarity.add(at, map_pair_sums(s_a, s_b));
      if (of_s) add_pairs_in_both(a, b, l, s_a, s_b, first, takes, m.pairs_in_both.data() + at);
    }
    steps.done();
  }
  return m;
}

// Whether head (l, h)'s pair mask on a side is made again from its lens map when asked: a long
// text's, with pairs, not kept (AnalysisRun::long_pair_mask_bytes).
bool mask_made_again(const ComparedRun& r, int64_t l, int64_t h) {
  const HeadAnalysis& head = r.analysis.head(l, h);
  return !keeps_whole(r) && !pairs_of_s(r) && head.pairs.tokens() != r.analysis.length && head.pair_count > 0;
}

// [L, H, m, d]: the first L layers' head outputs on the aligned tokens.
at::Tensor aligned_outputs(const ComparedRun& r, int64_t layers, const std::vector<int64_t>& positions) {
  const at::Tensor index = at::tensor(positions, at::kLong).to(r.captures.head_outputs.device());
  return r.captures.head_outputs.slice(0, 0, layers).index_select(2, index);
}

std::vector<int> match_layer(const at::Tensor& cka) {
  const at::Tensor scores = at::nan_to_num(cka, 0.0).contiguous();
  return max_weight_matching(std::vector<double>(scores.data_ptr<double>(), scores.data_ptr<double>() + scores.numel()),
                             static_cast<int>(scores.size(0)));
}

}  // namespace

std::string TextComparison::shared_grid() const {
  if (same_shape()) return {};
  const auto x = [](int64_t l, int64_t h) { return std::to_string(l) + " x " + std::to_string(h); };
  return "the " + std::to_string(layers) + " layers x " + std::to_string(heads) + " heads both have (A " +
         x(layers_a, heads_a) + ", B " + x(layers_b, heads_b) + ")";
}

TextComparison compare_texts(const ComparedRun& a, const ComparedRun& b, const CompareSettings& settings) {
  check_run(a, "A");
  check_run(b, "B");
  c10::InferenceMode guard;
  TextComparison c;
  c.layers_a = a.analysis.num_layers, c.heads_a = a.analysis.num_heads;
  c.layers_b = b.analysis.num_layers, c.heads_b = b.analysis.num_heads;
  c.layers = std::min(c.layers_a, c.layers_b), c.heads = std::min(c.heads_a, c.heads_b);
  c.alignment = align_tokens(a.encoding, a.text, b.encoding, b.text);
  if (c.alignment.size() == 0) throw Error("the two runs share no token: no comparison is defined");

  const at::Tensor outputs_a = aligned_outputs(a, c.layers, c.alignment.a),
                   outputs_b = aligned_outputs(b, c.layers, c.alignment.b);
  at::Tensor same_head_cka;  // [layers, heads]
  if (settings.match_heads) {
    c.layer_cka = cross_linear_cka(outputs_a, outputs_b).cpu().contiguous();
    same_head_cka = c.layer_cka.slice(1, 0, c.heads).slice(2, 0, c.heads).diagonal(0, 1, 2).contiguous();
    if (c.same_shape())
      for (int64_t l = 0; l < c.layers; ++l) c.matching.push_back(match_layer(c.layer_cka[l]));
  } else {
    same_head_cka =
        paired_linear_cka(outputs_a.slice(1, 0, c.heads), outputs_b.slice(1, 0, c.heads)).cpu().contiguous();
  }
  const auto cka = same_head_cka.accessor<double, 2>();

  std::optional<SameTokenMeasures> same;
  const bool in_blocks = !keeps_whole(a) || !keeps_whole(b);
  const auto masks_again = [&](int64_t l, int64_t h) {
    return c.alignment.identical && (mask_made_again(a, l, h) || mask_made_again(b, l, h));
  };
  int64_t heads_again = 0;
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t h = 0; h < c.heads; ++h) heads_again += masks_again(l, h);
  CompareSteps steps(settings, (c.alignment.identical && in_blocks ? c.layers : 0) + heads_again);
  if (c.alignment.identical)
    same = in_blocks ? maps_in_blocks(a, b, c.layers, c.heads, settings.block_rows, steps)
                     : whole_maps(a, b, c.layers, c.heads);
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t h = 0; h < c.heads; ++h) {
      const bool again = masks_again(l, h);
      if (again) steps.begin();
      HeadChange& change = c.changes.emplace_back();
      const HeadAnalysis &ha = a.analysis.head(l, h), &hb = b.analysis.head(l, h);
      change.cka = cka[l][h];
      change.stats = stats_change(ha.stats, hb.stats, a.encoding, b.encoding);
      if (!same) continue;
      const size_t k = static_cast<size_t>(l * c.heads + h);
      if (same->attention) {
        const MapPairSums& m = *same->attention;
        change.attention_cosine = m.dot[k] / std::sqrt(m.norm_a[k] * m.norm_b[k]);
        change.attention_max_difference = m.max_difference[k];
      }
      if (same->similarity.norm_a[k] > 0)
        change.similarity_relative_change = std::sqrt(same->similarity.difference_norm[k] / same->similarity.norm_a[k]);
      change.jaccard = same->pairs_in_both.empty()
                           ? jaccard_index(a.analysis.pair_mask(l, h), b.analysis.pair_mask(l, h))
                           : jaccard_of_counts(same->pairs_in_both[k], ha.pair_count, hb.pair_count);
      if (again) steps.done();
    }
  return c;
}

std::optional<double> jaccard_of_counts(int64_t both, int64_t a, int64_t b) {
  const int64_t either = a + b - both;
  if (either == 0) return std::nullopt;
  return static_cast<double>(both) / static_cast<double>(either);
}

std::optional<double> jaccard_index(const PairMask& a, const PairMask& b) {
  if (a.tokens() != b.tokens()) throw Error("the Jaccard index needs two pair sets over the same tokens");
  return jaccard_of_counts(a.count_both(b), a.count(), b.count());
}

at::Tensor all_heads_cka(const ComparedRun& a, const ComparedRun& b, const TokenAlignment& alignment) {
  c10::InferenceMode guard;
  const auto flat = [](const ComparedRun& r, const std::vector<int64_t>& positions) {  // [L H, m, d]
    return aligned_outputs(r, r.captures.num_layers, positions).flatten(0, 1);
  };
  return cross_linear_cka(flat(a, alignment.a), flat(b, alignment.b)).cpu();
}

at::Tensor difference_map(const ComparedRun& a, const ComparedRun& b, ComparedMatrix matrix, int64_t layer,
                          int64_t head) {
  if (!align_tokens(a.encoding, a.text, b.encoding, b.text).identical)
    throw Error("difference maps need the same tokens in both runs");
  if (layer < 0 || head < 0 || layer >= std::min(a.analysis.num_layers, b.analysis.num_layers) ||
      head >= std::min(a.analysis.num_heads, b.analysis.num_heads))
    throw Error("layer " + std::to_string(layer) + ", head " + std::to_string(head) + " is not in both runs");
  c10::InferenceMode guard;
  const auto pick = [&](const ComparedRun& r) -> at::Tensor {
    if (matrix == ComparedMatrix::Attention) {
      if (!has_attention(r)) throw Error("a run keeps no attention maps, nor the model that makes them again");
      return attention_block_of(r, layer, {head, 1}, {}).whole()[0][0];
    }
    const at::Tensor s = similarity_rows_of(r, layer, {head, 1}, {})[0];
    return matrix == ComparedMatrix::Similarity ? s
                                                : cosine_from_similarity(s, r.analysis.similarity.norms[layer][head]);
  };
  return (pick(b).to(at::kCPU, at::kFloat) - pick(a).to(at::kCPU, at::kFloat)).contiguous();
}

}  // namespace attnscope
