#include "analysis/text_analysis.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <span>

#include "analysis/context_similarity.h"
#include "analysis/lens_maps.h"
#include "analysis/sentences.h"
#include "base/error.h"

namespace attnscope {
namespace {

void check_settings(const AnalysisSettings& s, int64_t layers, int64_t heads) {
  if (!(s.tau > 0 && s.tau <= 1)) throw Error("tau must be in (0, 1], got " + std::to_string(s.tau));
  if (!(s.tau_sep > 0 && s.tau_sep <= 1)) throw Error("tau_sep must be in (0, 1], got " + std::to_string(s.tau_sep));
  if (s.segment_map.layer < -1 || s.segment_map.layer >= layers)
    throw Error("segment map layer " + std::to_string(s.segment_map.layer) + " is not a layer of this model (0 to " +
                std::to_string(layers - 1) + ")");
  if (s.segment_map.head < -1 || s.segment_map.head >= heads)
    throw Error("segment map head " + std::to_string(s.segment_map.head) + " is not a head of this model (0 to " +
                std::to_string(heads - 1) + ")");
}

// Column attention of the chosen map, from the heads' column sums [L, H, n].
at::Tensor segment_columns(const at::Tensor& columns, const MapChoice& choice) {
  const at::Tensor layer = columns[choice.layer < 0 ? columns.size(0) - 1 : choice.layer];
  return choice.head < 0 ? layer.sum(0) : layer[choice.head];
}

// The matrix the pairs come from when it is not S: cosine from S, or the given maps made
// symmetric, (M + M^T) / 2; the diagonal 0, as S's is.
at::Tensor symmetric_pair_matrix(PairInput input, const ContextSimilarity& similarity, const at::Tensor& maps) {
  if (input == PairInput::Similarity) return {};
  if (input == PairInput::Cosine) return cosine_from_similarity(similarity.similarity, similarity.norms);
  return symmetric_pair_map(maps.to(similarity.similarity.device(), at::kFloat));
}

// Whether two tensors' first `rows` along dimension 2 are the same bits ([L, H, n, d] head outputs).
bool same_leading_rows(const at::Tensor& a, const at::Tensor& b, int64_t rows) {
  if (a.dim() != 4 || b.dim() != 4 || a.size(0) != b.size(0) || a.size(1) != b.size(1) || a.size(3) != b.size(3) ||
      a.scalar_type() != at::kFloat || b.scalar_type() != at::kFloat || a.size(2) < rows || b.size(2) < rows)
    return false;
  if (!a.is_cpu() || !b.is_cpu() || !a.is_contiguous() || !b.is_contiguous())
    return at::equal(a.narrow(2, 0, rows), b.narrow(2, 0, rows));
  const int64_t slices = a.size(0) * a.size(1), d = a.size(3);
  const auto bytes = static_cast<size_t>(rows * d) * sizeof(float);
  for (int64_t k = 0; k < slices; ++k)
    if (std::memcmp(a.const_data_ptr<float>() + k * a.size(2) * d, b.const_data_ptr<float>() + k * b.size(2) * d,
                    bytes) != 0)
      return false;
  return true;
}

// How many leading elements two vectors share.
template <typename T>
int64_t leading_same(const std::vector<T>& a, const std::vector<T>& b) {
  const size_t most = std::min(a.size(), b.size());
  return static_cast<int64_t>(std::mismatch(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(most), b.begin()).first -
                              a.begin());
}

// The pairs `before` counted among its first tokens, up to its last checkpoint before this text
// differs, where they are this analysis's too: its tokens there the same, in the same sentences,
// taking part alike, with the same head outputs to the bit (a decoder's text edited after them; an
// encoder's change everywhere), the same tau. Null where none.
std::shared_ptr<const PairsBefore> resumable_pairs(const TextAnalysis* before, const TextAnalysis& a) {
  if (!before || !before->pairs_before || before->settings.pairs_from != PairInput::Similarity ||
      before->pairs_before->tau != a.settings.tau)
    return nullptr;
  const PairsBefore& p = *before->pairs_before;
  const TextFacts &was = before->facts, &is = a.facts;
  const int64_t same = std::min({a.length, leading_same(was.ids, is.ids), leading_same(was.sentence, is.sentence),
                                 leading_same(was.takes_part, is.takes_part)});
  auto kept = p.row() <= same ? before->pairs_before : std::make_shared<const PairsBefore>(pairs_before_up_to(p, same));
  if (kept->row() == 0 || !same_leading_rows(before->head_outputs, a.head_outputs, kept->row())) return nullptr;
  return kept;
}

// Every head's high-similarity elements, from S (or the matrix settings.pairs_from names), whole or
// block by block; in blocks, the token norms come from the same products.
// `scanned`: a long text's heads handed on as their scan ends.
std::vector<HeadHighSimilarity> find_pairs(TextAnalysis& a, const at::Tensor& maps, const AnalysisRun& run,
                                           const HeadsScanned& scanned) {
  const int64_t L = a.num_layers, H = a.num_heads, n = a.length;
  if (run.similarity_in_blocks && run.lens_pairs) {
    a.similarity.norms = at::linalg_vector_norm(a.head_outputs, 2, {-1});
    auto high = run.lens_pairs(a.facts, a.settings.tau, run.long_pair_mask_bytes, scanned);
    if (static_cast<int64_t>(high.size()) != L * H) throw Error("a lens's pairs were not found for every head");
    return high;
  }
  if (run.similarity_in_blocks) {
    at::Tensor norms;
    const bool cosine = a.settings.pairs_from == PairInput::Cosine;
    const auto before = run.keeps_pairs_before && !cosine ? std::make_shared<PairsBefore>() : nullptr;
    const auto resume = before ? resumable_pairs(run.resume, a) : nullptr;
    auto high = high_similarity_in_blocks(a.head_outputs.reshape({L * H, n, -1}), a.facts, a.settings.tau,
                                          {.norms = &norms,
                                           .mask_bytes = run.long_pair_mask_bytes,
                                           .progress = run.progress,
                                           .keep_going = run.keep_going,
                                           .cosine = cosine,
                                           .scanned = scanned,
                                           .before = before.get(),
                                           .splits = pairs_before_rows(n, run.pairs_before_step),
                                           .resume = resume.get()});
    a.similarity.norms = norms.view({L, H, n});
    a.pairs_before = before;
    return high;
  }
  a.pair_matrix = symmetric_pair_matrix(a.settings.pairs_from, a.similarity, maps);
  const at::Tensor& pair_source = a.pair_matrix.defined() ? a.pair_matrix : a.similarity.similarity;
  return high_similarity(pair_source.reshape({L * H, n, n}), a.facts, a.settings.tau);
}

// Pairs found before (AnalysisRun::found): their scales and masks as the scan would give them; a
// long text's norms, which the scan takes on its way, summed here.
std::vector<HeadHighSimilarity> taken_pairs(TextAnalysis& a, std::vector<FoundPairs>& found, const AnalysisRun& run) {
  const int64_t L = a.num_layers, H = a.num_heads;
  if (static_cast<int64_t>(found.size()) != L * H || a.settings.pairs_from != PairInput::Similarity)
    throw Error("pairs found before are taken for every head's pairs of S only");
  // The norms without a temporary the size of the head outputs (half a gigabyte at 8,192 tokens).
  if (!a.similarity.norms.defined()) a.similarity.norms = at::linalg_vector_norm(a.head_outputs, 2, {-1});
  PairMaskBudget kept(run.similarity_in_blocks ? run.long_pair_mask_bytes : kEveryPairMask);
  std::vector<HeadHighSimilarity> high(found.size());
  for (size_t k = 0; k < found.size(); ++k) {
    PairMask& mask = found[k].mask;
    const bool given = mask.tokens() == static_cast<int>(a.length);
    if (!given && (mask.tokens() != 0 || !run.similarity_in_blocks))
      throw Error("pairs found before are of another text");
    high[k].scale = found[k].scale;
    high[k].counts.count = given ? mask.count() : found[k].count;
    if (kept.keep(mask)) high[k].mask = std::move(mask);
    mask = PairMask();  // taken or dropped: the caller's copy goes either way
  }
  return high;
}

// An analysis of the same text with nothing found yet: its settings, shape and tokens' facts.
TextAnalysis of_the_same_text(const TextAnalysis& a) {
  TextAnalysis same;
  same.settings = a.settings;
  same.num_layers = a.num_layers;
  same.num_heads = a.num_heads;
  same.length = a.length;
  same.facts = a.facts;
  return same;
}

// What a long text's analysis hands on while its scan goes on (AnalysisRun::so_far): everything
// known before the scan, and each head's scale, pair count and statistics as it is scanned.
class AnalysisSoFar {
 public:
  AnalysisSoFar(const TextAnalysis& a, std::function<void(const TextAnalysis&)> tell)
      : so_far_(of_the_same_text(a)), tell_(std::move(tell)) {
    so_far_.segment_separators = a.segment_separators;
    so_far_.segments = a.segments;
    so_far_.heads.resize(static_cast<size_t>(a.num_layers * a.num_heads));
    so_far_.heads_scanned = 0;
  }
  HeadsScanned scanned() {
    return [this](int64_t first, std::span<const HeadHighSimilarity> heads) {
      for (size_t k = 0; k < heads.size(); ++k) {
        HeadAnalysis& h = so_far_.heads.at(static_cast<size_t>(first) + k);
        h.scale = heads[k].scale;
        h.pair_count = heads[k].counts.count;
        h.stats = stats_from_counts(heads[k].counts, so_far_.facts);
      }
      so_far_.heads_scanned = first + static_cast<int64_t>(heads.size());
      tell_(so_far_);
    };
  }

 private:
  TextAnalysis so_far_;
  std::function<void(const TextAnalysis&)> tell_;
};

LayerAnalysis pool_layer(const std::vector<HeadAnalysis>& heads, size_t first, size_t count, size_t n) {
  LayerAnalysis layer;
  layer.distance_histogram.assign(std::max<size_t>(n, 1), 0);
  std::set<int32_t> anchors;
  for (size_t k = first; k < first + count; ++k) {
    const HeadStats& s = heads[k].stats;
    for (size_t d = 0; d < s.distance_histogram.size(); ++d) layer.distance_histogram[d] += s.distance_histogram[d];
    if (s.anchor_id) anchors.insert(*s.anchor_id);
  }
  layer.distinct_anchors = static_cast<int>(anchors.size());
  return layer;
}

}  // namespace

at::Tensor TextAnalysis::head_similarity(int64_t layer, int64_t h) const {
  if (similarity.similarity.defined()) return similarity.similarity[layer][h];
  return context_similarity(head_outputs[layer][h].unsqueeze(0)).similarity.squeeze(0);
}

at::Tensor TextAnalysis::summed_similarity(int64_t layer) const {
  if (similarity.similarity.defined()) return similarity.similarity[layer].sum(0);
  at::Tensor sum = head_similarity(layer, 0);
  for (int64_t h = 1; h < num_heads; ++h) sum.add_(head_similarity(layer, h));
  return sum;
}

namespace {

// Rows [first, first + count) of a head's whole mask, the other rows empty.
PairMask mask_rows(const PairMask& whole, int64_t first, int64_t count) {
  const int64_t n = whole.tokens();
  if (first == 0 && count == n) return whole;
  PairMask part(static_cast<int>(n));
  std::vector<uint8_t> flags(static_cast<size_t>(n));
  for (int64_t i = first; i < first + count; ++i) {
    for (int64_t j = i + 1; j < n; ++j)
      flags[static_cast<size_t>(j - i - 1)] = whole.test(static_cast<int>(i), static_cast<int>(j));
    part.set_row(static_cast<int>(i), flags.data());
  }
  return part;
}

// One head's map a block of rows at a time, from a text's source of every head's.
CausalMapRows causal_rows_of(const HeadCausalMapRows& rows, int64_t layer, int64_t head) {
  return [&rows, layer, head](const MapRowsVisitor& each) { rows(layer, head, each); };
}

}  // namespace

PairMask TextAnalysis::pair_mask(int64_t layer, int64_t h, RowSpan rows) const {
  const HeadAnalysis& kept = head(layer, h);
  const int64_t first = rows.first, count = rows.size(length);
  if (first < 0 || count < 0 || first + count > length) throw Error("pair mask rows out of range");
  if (kept.pairs.tokens() == length) return mask_rows(kept.pairs, first, count);
  if (kept.pair_count == 0) return PairMask(static_cast<int>(length));  // nothing to make again
  if (pair_map) {                                   // a long text's lens pairs not kept: the head's map made again
    if (settings.pairs_from == PairInput::Rollout)  // kept when found: making the rollout again takes minutes
      throw Error("this analysis holds no mask of that head's pairs from rollout");
    return mask_rows(made_lens_mask(layer, h), first, count);
  }
  if (!head_outputs.defined()) throw Error("this analysis keeps neither the pairs nor the head outputs they come from");
  return pair_rows(head_outputs[layer][h], facts, settings.tau, kept.scale, first, count,
                   settings.pairs_from == PairInput::Cosine ? similarity.norms[layer][h] : at::Tensor());
}

// The whole mask of a long text's lens head: made before, or from the head's map made again, one
// such map at a time (MadePairMasks), and kept for the next to ask.
PairMask TextAnalysis::made_lens_mask(int64_t layer, int64_t h) const {
  const auto made = [&] {
    const float scale = head(layer, h).scale;
    if (pair_map_rows)
      return causal_map_pair_mask(causal_rows_of(pair_map_rows, layer, h), length, facts, settings.tau, scale);
    return map_pair_rows(pair_map(layer, h), facts, settings.tau, scale, 0, length);
  };
  if (!made_masks) return made();
  const auto making = made_masks->making();
  if (std::optional<PairMask> mask = made_masks->find(layer, h)) return *mask;
  PairMask mask = made();
  made_masks->keep(layer, h, mask);
  return mask;
}

std::optional<PairMask> TextAnalysis::pair_mask_at_hand(int64_t layer, int64_t h) const {
  const PairMask& kept = head(layer, h).pairs;
  if (kept.tokens() == length) return kept;
  if (head(layer, h).pair_count == 0) return PairMask(static_cast<int>(length));
  return pair_map && made_masks ? made_masks->find(layer, h) : std::nullopt;
}

std::vector<TokenPair> head_pairs(const TextAnalysis& a, int64_t layer, int64_t head, int64_t limit,
                                  const PairMask* made) {
  const HeadAnalysis& h = a.head(layer, head);
  if (h.pair_count == 0 || limit <= 0) return {};
  if (a.pair_map_rows) {  // a causal map's rows: its mask (made once), then the rows up to its last pair's
    std::vector<TokenPair> pairs = pairs_without_values(made ? *made : a.pair_mask(layer, head), limit);
    value_causal_map_pairs(causal_rows_of(a.pair_map_rows, layer, head), h.scale, pairs);
    return pairs;
  }
  if (a.pair_map) {  // one such map made at a time (MadePairMasks)
    std::unique_lock<std::mutex> making;
    if (a.made_masks) making = a.made_masks->making();
    return pairs_valued_from_map(a, layer, head, a.pair_map(layer, head), limit);
  }
  if (a.pair_matrix.defined() || a.similarity.similarity.defined()) {
    const at::Tensor s = kept_pair_values(a, layer, head);
    std::vector<TokenPair> pairs = list_pairs(h.pairs, s.data_ptr<float>(), h.scale);
    if (static_cast<int64_t>(pairs.size()) > limit) pairs.resize(static_cast<size_t>(limit));
    return pairs;
  }
  // S not kept: the rows that hold the listed pairs, a block at a time (S's, or its cosine's).
  std::vector<TokenPair> pairs;
  const int64_t n = a.length, step = pair_value_row_step(n);
  const auto list = [&](const PairMask& mask) {
    mask.for_each([&](int i, int j) {
      if (static_cast<int64_t>(pairs.size()) < limit) pairs.push_back({i, j, 0.0f});
    });
  };
  if (h.pairs.tokens() == n || (made && made->tokens() == n))
    list(h.pairs.tokens() == n ? h.pairs : *made);
  else  // not kept: its rows made again until `limit` pairs are listed
    for (int64_t first = 0; first < n && static_cast<int64_t>(pairs.size()) < limit; first += step)
      list(a.pair_mask(layer, head, {first, std::min(step, n - first)}));
  for (size_t k = 0; k < pairs.size();) {
    const int64_t first = pairs[k].i, count = std::min(step, n - first);
    const at::Tensor rows = pair_value_rows(a, layer, head, first, count);
    const float* s = rows.const_data_ptr<float>();
    for (; k < pairs.size() && pairs[k].i < first + count; ++k)
      pairs[k].value = s[(pairs[k].i - first) * n + pairs[k].j] / h.scale;
  }
  return pairs;
}

at::Tensor kept_pair_values(const TextAnalysis& a, int64_t layer, int64_t head) {
  const at::Tensor source = a.pair_matrix.defined() ? a.pair_matrix[layer][head] : a.head_similarity(layer, head);
  return source.to(at::kCPU, at::kFloat).contiguous();
}

at::Tensor pair_value_rows(const TextAnalysis& a, int64_t layer, int64_t head, int64_t first, int64_t count) {
  at::Tensor rows = similarity_rows(a.head_outputs[layer].narrow(0, head, 1), first, count);
  if (a.settings.pairs_from == PairInput::Cosine)
    rows = cosine_rows(rows, a.similarity.norms[layer].narrow(0, head, 1), first);
  return rows.to(at::kCPU, at::kFloat).contiguous();
}

int64_t pair_value_row_step(int64_t n) { return std::max<int64_t>(1, (int64_t{8} << 20) / std::max<int64_t>(n, 1)); }

bool pair_values_are_slow(const TextAnalysis& a) { return a.pair_map && a.settings.pairs_from == PairInput::Rollout; }

namespace {

// The first `limit` pairs of a mask, their values NaN.
std::vector<TokenPair> first_pairs(const PairMask& mask, int64_t limit) {
  std::vector<TokenPair> pairs;
  mask.for_each([&](int i, int j) {
    if (static_cast<int64_t>(pairs.size()) < limit) pairs.push_back({i, j, std::numeric_limits<float>::quiet_NaN()});
  });
  return pairs;
}

}  // namespace

std::vector<TokenPair> pairs_without_values(const TextAnalysis& a, int64_t layer, int64_t head, int64_t limit) {
  return first_pairs(a.pair_mask(layer, head), limit);
}

std::vector<TokenPair> pairs_without_values(const PairMask& mask, int64_t limit) { return first_pairs(mask, limit); }

std::vector<TokenPair> pairs_valued_from_map(const TextAnalysis& a, int64_t layer, int64_t head, const at::Tensor& map,
                                             int64_t limit) {
  const at::Tensor m = map.contiguous();
  std::vector<TokenPair> pairs = first_pairs(pair_mask_of_map(a, layer, head, m), limit);
  const int64_t n = a.length;
  const float* v = m.const_data_ptr<float>();
  const float scale = a.head(layer, head).scale;
  for (TokenPair& p : pairs) p.value = map_pair_value(v, n, p.i, p.j, scale);
  return pairs;
}

PairMask pair_mask_of_map(const TextAnalysis& a, int64_t layer, int64_t head, const at::Tensor& map) {
  const int64_t n = a.length;
  if (map.dim() != 2 || map.size(0) != n || map.size(1) != n || map.scalar_type() != at::kFloat || !map.is_cpu())
    throw Error("a head's pairs are valued from its whole map: [" + std::to_string(n) + ", " + std::to_string(n) +
                "] float32 on the host");
  const HeadAnalysis& h = a.head(layer, head);
  if (h.pairs.tokens() == n) return h.pairs;
  if (a.made_masks)
    if (std::optional<PairMask> made = a.made_masks->find(layer, head)) return *made;
  PairMask mask = map_pair_rows(map.contiguous(), a.facts, a.settings.tau, h.scale, 0, n);
  if (a.made_masks) a.made_masks->keep(layer, head, mask);
  return mask;
}

TextAnalysis resume_point(const TextAnalysis& analysis) {
  if (!analysis.pairs_before) return {};
  TextAnalysis kept = of_the_same_text(analysis);
  kept.head_outputs = analysis.head_outputs;
  kept.pairs_before = analysis.pairs_before;
  return kept;
}

TextAnalysis analyze_text(const Encoding& encoding, const TextCaptures& c, const AnalysisSettings& settings,
                          const AnalysisRun& run) {
  c10::InferenceMode guard;
  AnalysisRun chosen = run;
  chosen.similarity_in_blocks |= !c.attention.defined();  // a long text: no map is whole, nor is S
  const at::Tensor columns =
      run.separator_columns.defined() ? run.separator_columns : separator_columns(c, settings.separators_from);
  return analyze_text(encoding, c.head_outputs, columns, settings, chosen,
                      chosen.similarity_in_blocks ? at::Tensor() : pair_maps(c, settings.pairs_from));
}

at::Tensor symmetric_pair_map(const at::Tensor& maps) {
  c10::InferenceMode guard;
  at::Tensor m = maps + maps.transpose(-1, -2);
  m.mul_(0.5).diagonal(0, -2, -1).zero_();
  return m;
}

void symmetric_pair_map_in_place(at::Tensor& map, int64_t tile) {
  c10::InferenceMode guard;
  const int64_t n = map.size(0);
  if (map.dim() != 2 || map.size(1) != n || tile < 1) throw Error("a map made symmetric in place must be square");
  for (int64_t i = 0; i < n; i += tile)
    for (int64_t j = i; j < n; j += tile) {
      at::Tensor upper = map.narrow(0, i, std::min(tile, n - i)).narrow(1, j, std::min(tile, n - j)),
                 lower = map.narrow(0, j, std::min(tile, n - j)).narrow(1, i, std::min(tile, n - i));
      const at::Tensor mean = (upper + lower.t()).mul_(0.5);
      upper.copy_(mean);
      lower.copy_(mean.t());
    }
  map.diagonal().zero_();
}

at::Tensor pair_maps(const TextCaptures& c, PairInput input) {
  c10::InferenceMode guard;
  switch (input) {
    case PairInput::Similarity:
    case PairInput::Cosine: return {};
    case PairInput::Attention: return c.attention.to(at::kFloat);
    case PairInput::Norm: return head_norm_maps(c);
    case PairInput::Rollout: {
      return rollout_maps(c, static_cast<int>(c.attention.size(0)))
          .unsqueeze(1)
          .expand({-1, c.attention.size(1), -1, -1});
    }
  }
  return {};
}

at::Tensor separator_columns(const TextCaptures& c, SeparatorInput input) {
  c10::InferenceMode guard;
  if (!c.attention.defined() && !(c.column_sums.defined() && c.head_outputs.defined()))
    throw Error(
        "these captures hold neither the attention maps nor their column sums and head outputs: "
        "there is nothing to analyse (a result file saved with --captures none holds its analysis instead)");
  const at::Tensor& shape = c.attention.defined() ? c.attention : c.head_outputs;
  const int64_t L = shape.size(0), H = shape.size(1);
  switch (input) {
    case SeparatorInput::Attention: break;
    case SeparatorInput::Norm: return column_means(head_norm_maps(c).sum(-2), c.visibility);
    case SeparatorInput::Rollout:
      return column_means(rollout_maps(c, static_cast<int>(L)).sum(-2).unsqueeze(1).expand({-1, H, -1}).contiguous(),
                          c.visibility);
  }
  // A long text keeps its maps' column sums instead of its maps.
  const at::Tensor sums = c.attention.defined() ? c.attention.to(at::kFloat).sum(-2) : c.column_sums;
  return column_means(sums, c.visibility);
}

namespace {

void check_analysis_inputs(const Encoding& encoding, const at::Tensor& head_outputs, const at::Tensor& columns,
                           const AnalysisSettings& settings, const AnalysisRun& run, const at::Tensor& maps) {
  if (head_outputs.dim() != 4 || columns.dim() != 3 || columns.sizes() != head_outputs.sizes().slice(0, 3))
    throw Error("the head outputs and column attention do not describe the same layers, heads and tokens");
  const int64_t L = head_outputs.size(0), H = head_outputs.size(1), n = head_outputs.size(2);
  if (static_cast<int64_t>(encoding.size()) != n)
    throw Error("the captures have " + std::to_string(n) + " tokens but the encoding " +
                std::to_string(encoding.size()));
  check_settings(settings, L, H);
  const bool from_maps = pairs_from_a_map(settings.pairs_from);
  if (run.similarity_in_blocks && from_maps && !run.lens_pairs)
    throw Error("a long text's pairs from a lens need its maps made again by the model that ran it");
  if (from_maps && !run.similarity_in_blocks && (!maps.defined() || maps.sizes() != at::IntArrayRef({L, H, n, n})))
    throw Error("pairs from attention, the norm-based maps or rollout need those maps for every head (pair_maps)");
}

// Which tokens separators may fall on: all, or the text's alone.
std::vector<bool> separator_eligible(const Encoding& encoding, const AnalysisSettings& settings) {
  std::vector<bool> eligible(encoding.size());
  for (size_t i = 0; i < eligible.size(); ++i)
    eligible[i] = !settings.separators_text_only || !encoding.tokens[i].special;
  return eligible;
}

// The text's segments (from the chosen map's separators), its sentences and the facts each head's
// statistics read: ids, sentence of each token, which tokens take part, their classes.
void add_text_facts(TextAnalysis& a, const Encoding& encoding, const at::Tensor& columns,
                    const std::vector<bool>& eligible) {
  const AnalysisSettings& settings = a.settings;
  const auto n = static_cast<int>(encoding.size());
  a.segment_separators =
      separators_from_columns(segment_columns(columns, settings.segment_map).unsqueeze(0), settings.tau_sep, eligible)
          .front();
  a.segments = segments_from(a.segment_separators.positions, n);
  std::vector<int> sentence = settings.sentences == SentenceMode::Punctuation ? punctuation_sentences(encoding.tokens)
                                                                              : segment_sentences(a.segments, n);
  std::vector<bool> takes_part(encoding.size());
  std::vector<int32_t> ids;
  for (size_t i = 0; i < takes_part.size(); ++i) {
    takes_part[i] = settings.include_special || !encoding.tokens[i].special;
    ids.push_back(encoding.tokens[i].id);
  }
  a.facts = text_facts(std::move(ids), std::move(sentence), std::move(takes_part));
  a.facts.classes = token_classes(encoding);
}

// Each head's pairs, separators and statistics, and each layer's pooled from its heads.
void add_heads_and_layers(TextAnalysis& a, std::vector<HeadHighSimilarity>& high, const at::Tensor& columns,
                          const std::vector<bool>& eligible, const AnalysisRun& run) {
  const int64_t L = a.num_layers, H = a.num_heads, n = a.length;
  const double tau_sep = a.settings.tau_sep;
  std::vector<Separators> head_separators = separators_from_columns(columns.reshape({L * H, n}), tau_sep, eligible);
  std::vector<Separators> layer_separators = separators_from_columns(columns.sum(1), tau_sep, eligible);
  a.heads.resize(static_cast<size_t>(L * H));
  for (size_t k = 0; k < a.heads.size(); ++k) {
    HeadAnalysis& head = a.heads[k];
    head.scale = high[k].scale;
    head.pair_count = high[k].counts.count;
    head.pairs = std::move(high[k].mask);  // empty where a long text's are not kept
    head.separators = std::move(head_separators[k]);
    head.stats = run.found ? std::move((*run.found)[k].stats) : stats_from_counts(high[k].counts, a.facts);
  }
  for (int64_t l = 0; l < L; ++l) {
    a.layers.push_back(pool_layer(a.heads, static_cast<size_t>(l * H), static_cast<size_t>(H), static_cast<size_t>(n)));
    a.layers.back().separators = std::move(layer_separators[static_cast<size_t>(l)]);
  }
}

void move_to_host(TextAnalysis& a) {
  const auto host = [](const at::Tensor& t) { return t.defined() ? t.cpu() : t; };
  a.similarity = {host(a.similarity.similarity), a.similarity.norms.cpu()};
  a.head_outputs = host(a.head_outputs);
  if (a.pair_matrix.defined()) a.pair_matrix = a.pair_matrix.cpu();
}

}  // namespace

TextAnalysis analyze_text(const Encoding& encoding, const at::Tensor& head_outputs, const at::Tensor& columns,
                          const AnalysisSettings& settings, const AnalysisRun& run, const at::Tensor& maps) {
  check_analysis_inputs(encoding, head_outputs, columns, settings, run, maps);
  const auto check = [&] { stop_if_stale(run.keep_going); };
  c10::InferenceMode guard;
  TextAnalysis a;
  a.settings = settings;
  a.num_layers = head_outputs.size(0);
  a.num_heads = head_outputs.size(1);
  a.length = head_outputs.size(2);
  const bool from_maps = pairs_from_a_map(settings.pairs_from);
  if (run.similarity_in_blocks && from_maps) {
    a.pair_map = run.pair_map;
    a.pair_map_rows = run.pair_map_rows;
    a.made_masks = std::make_shared<MadePairMasks>();
  }
  check();
  // A whole text's S and pairs: a few products with no steps between them (MPNet at 512 tokens:
  // most of a second); a long text's scan reports its own stages.
  if (run.progress && !run.similarity_in_blocks) run.progress("analysis", kShareUnknown);
  if (run.similarity_in_blocks)
    a.head_outputs = head_outputs.to(at::kFloat);
  else
    a.similarity = context_similarity(head_outputs.to(at::kFloat));
  check();
  const std::vector<bool> eligible = separator_eligible(encoding, settings);
  add_text_facts(a, encoding, columns, eligible);
  std::optional<AnalysisSoFar> so_far;
  if (run.so_far && run.similarity_in_blocks && !run.found) so_far.emplace(a, run.so_far);
  std::vector<HeadHighSimilarity> high =
      run.found ? taken_pairs(a, *run.found, run) : find_pairs(a, maps, run, so_far ? so_far->scanned() : nullptr);
  check();
  add_heads_and_layers(a, high, columns, eligible, run);
  if (run.to_host) move_to_host(a);
  return a;
}

}  // namespace attnscope
