#include "analysis/head_roles.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "analysis/row_entropy.h"
#include "base/error.h"

namespace attnscope {

std::string_view head_role_name(HeadRole role) {
  static constexpr std::string_view names[] = {"previous token",  "next token", "first token", "end token",
                                               "duplicate token", "induction",  "broad"};
  return names[static_cast<size_t>(role)];
}

int64_t AttentionReach::visible(int64_t i, int64_t n) const {
  const int64_t back = before < 0 ? i : std::min(i, before);
  const int64_t ahead = after < 0 ? n - 1 - i : std::min(n - 1 - i, after);
  return back + 1 + ahead;
}

HeadRoleScores::HeadRoleScores(int64_t layers, int64_t heads)
    : layers_(layers), heads_(heads), scores_(kHeadRoles.size() * static_cast<size_t>(layers * heads)) {}

size_t HeadRoleScores::at(HeadRole role, int64_t layer, int64_t head) const {
  if (layer < 0 || layer >= layers_ || head < 0 || head >= heads_)
    throw Error("no head " + std::to_string(layer) + ":" + std::to_string(head));
  return (static_cast<size_t>(role) * static_cast<size_t>(layers_) + static_cast<size_t>(layer)) *
             static_cast<size_t>(heads_) +
         static_cast<size_t>(head);
}

std::optional<double> HeadRoleScores::score(HeadRole role, int64_t layer, int64_t head) const {
  return scores_[at(role, layer, head)];
}

void HeadRoleScores::set(HeadRole role, int64_t layer, int64_t head, std::optional<double> value) {
  scores_[at(role, layer, head)] = value;
}

std::optional<HeadRole> HeadRoleScores::strongest(int64_t layer, int64_t head, const HeadRoleSettings& settings) const {
  std::optional<HeadRole> best;
  double best_score = settings.threshold;
  for (const HeadRole role : kHeadRoles) {
    const auto s = score(role, layer, head);
    if (s && *s >= best_score && (!best || *s > best_score)) {
      best = role;
      best_score = *s;
    }
  }
  return best;
}

double HeadRoleScores::sink_rate(const HeadRoleSettings& settings, int64_t layer) const {
  int64_t sinks = 0, counted = 0;
  for (int64_t l = 0; l < layers_; ++l) {
    if (layer >= 0 && l != layer) continue;
    for (int64_t h = 0; h < heads_; ++h) {
      ++counted;
      const auto s = score(HeadRole::FirstToken, l, h);
      sinks += s && *s >= settings.sink_threshold;
    }
  }
  return counted ? static_cast<double>(sinks) / static_cast<double>(counted) : 0.0;
}

namespace {

// Per head [H] of one layer: the mean over `rows` of a per-row value [H, n], in float64.
std::vector<double> mean_over_rows(const at::Tensor& per_row, const std::vector<int64_t>& rows) {
  const at::Tensor picked = per_row.index_select(1, at::tensor(rows, at::kLong)).to(at::kDouble);
  const at::Tensor means = picked.mean(1).contiguous();
  return {means.data_ptr<double>(), means.data_ptr<double>() + means.numel()};
}

void set_layer(HeadRoleScores& scores, HeadRole role, int64_t layer, const std::vector<double>& values) {
  for (size_t h = 0; h < values.size(); ++h) scores.set(role, layer, static_cast<int64_t>(h), values[h]);
}

std::vector<int64_t> range(int64_t first, int64_t last) {
  std::vector<int64_t> out;
  for (int64_t i = first; i < last; ++i) out.push_back(i);
  return out;
}

// Row first + r of the block meets key first + r + shift on its diagonal first + shift - first_key
// (rows before -offset have none on a diagonal below the main one; rows whose key is past the
// block's last have none either).
void take_diagonal(at::Tensor& into, const at::Tensor& block, int64_t first, int64_t first_key, int64_t shift) {
  const int64_t offset = first + shift - first_key;
  if (offset <= -block.size(1) || offset >= block.size(2)) return;
  const at::Tensor values = block.diagonal(offset, 1, 2);
  into.narrow(1, first + std::max<int64_t>(0, -offset), values.size(1)).copy_(values);
}

}  // namespace

LayerRoleRows::LayerRoleRows(int64_t heads, int64_t n, const std::vector<int64_t>& ids, AttentionReach reach)
    : n_(n), ids_(ids), reach_(reach) {
  if (static_cast<int64_t>(ids.size()) != n) throw Error("head roles: the ids do not match the maps");
  for (at::Tensor* t : {&previous_, &first_, &next_, &end_, &duplicate_, &entropy_})
    *t = at::zeros({heads, n}, at::kDouble);
  std::unordered_map<int64_t, int64_t> last;  // each token's previous occurrence
  earlier_.assign(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    const auto [it, fresh] = last.try_emplace(ids[static_cast<size_t>(i)], i);
    if (!fresh) earlier_[static_cast<size_t>(i)] = std::exchange(it->second, i);
  }
}

void LayerRoleRows::add(const at::Tensor& block, int64_t first, int64_t first_key) {
  const int64_t heads = block.size(0), rows = block.size(1), keys = block.size(2);
  // A key the block leaves out has attention 0 from its rows: each sum below is left as it was.
  take_diagonal(previous_, block, first, first_key, -1);
  take_diagonal(next_, block, first, first_key, 1);
  if (first_key == 0) first_.narrow(1, first, rows).copy_(block.select(2, 0));
  if (first_key + keys == n_) end_.narrow(1, first, rows).copy_(block.select(2, keys - 1));
  // Duplicate token: the attention a query pays to earlier occurrences of its own token, summed
  // over those keys alone (earlier ones than the block's first key have none).
  std::vector<int64_t> row_of, cell_of;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = earlier_[static_cast<size_t>(first + r)]; j >= first_key; j = earlier_[static_cast<size_t>(j)]) {
      row_of.push_back(r);
      cell_of.push_back(r * keys + j - first_key);
    }
  if (!row_of.empty()) {
    const at::Tensor cells = at::tensor(cell_of, at::kLong).to(block.device());
    duplicate_.narrow(1, first, rows)
        .index_add_(1, at::tensor(row_of, at::kLong),
                    block.reshape({heads, rows * keys}).index_select(1, cells).to(at::kCPU, at::kDouble));
  }
  entropy_.narrow(1, first, rows).copy_(row_entropy(block));
}

void LayerRoleRows::take_rows(const LayerRoleRows& before, int64_t rows) {
  if (reach_.sees_ahead() || before.reach_.sees_ahead() || rows < 0 || rows > n_ || rows > before.n_ ||
      before.previous_.size(0) != previous_.size(0) ||
      !std::equal(ids_.begin(), ids_.begin() + rows, before.ids_.begin()))
    throw Error("head roles: rows are taken from the same layer's on the same earlier tokens, of a causal layer");
  // A causal layer reads no next or end token (zeros here, but for the last row before, whose last key was its own).
  const std::array<at::Tensor*, 4> into{&previous_, &first_, &duplicate_, &entropy_};
  const std::array<const at::Tensor*, 4> from{&before.previous_, &before.first_, &before.duplicate_, &before.entropy_};
  for (size_t k = 0; k < into.size(); ++k) into[k]->narrow(1, 0, rows).copy_(from[k]->narrow(1, 0, rows));
}

void LayerRoleRows::finish(HeadRoleScores& scores, int64_t l) const {
  const int64_t n = n_;
  if (n >= 2) {
    set_layer(scores, HeadRole::PreviousToken, l, mean_over_rows(previous_, range(1, n)));
    set_layer(scores, HeadRole::FirstToken, l, mean_over_rows(first_, range(1, n)));
    if (reach_.sees_ahead()) {
      set_layer(scores, HeadRole::NextToken, l, mean_over_rows(next_, range(0, n - 1)));
      set_layer(scores, HeadRole::EndToken, l, mean_over_rows(end_, range(0, n)));
    }
  }
  std::vector<int64_t> repeated;
  for (int64_t i = 0; i < n; ++i)
    if (earlier_[static_cast<size_t>(i)] >= 0) repeated.push_back(i);
  if (!repeated.empty()) set_layer(scores, HeadRole::DuplicateToken, l, mean_over_rows(duplicate_, repeated));
  // Broad: each row's entropy over the log of the keys it may see (rows that see one key left out).
  std::vector<double> norm(static_cast<size_t>(n));
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = reach_.visible(i, n);
    norm[static_cast<size_t>(i)] = v > 1 ? 1.0 / std::log(static_cast<double>(v)) : 0.0;
    if (v > 1) rows.push_back(i);
  }
  if (!rows.empty())
    set_layer(scores, HeadRole::Broad, l, mean_over_rows(entropy_ * at::tensor(norm, at::kDouble), rows));
}

HeadRoleScores head_role_scores(const at::Tensor& attention, const std::vector<int64_t>& ids,
                                const std::vector<AttentionReach>& reach) {
  const int64_t L = attention.size(0), H = attention.size(1), n = attention.size(2);
  if (static_cast<int64_t>(ids.size()) != n) throw Error("head roles: the ids do not match the maps");
  if (reach.empty() || (reach.size() != 1 && static_cast<int64_t>(reach.size()) != L))
    throw Error("head roles: one reach, or one per layer");
  HeadRoleScores scores(L, H);
  for (int64_t l = 0; l < L; ++l) {
    LayerRoleRows rows(H, n, ids, reach.size() == 1 ? reach[0] : reach[static_cast<size_t>(l)]);
    rows.add(attention[l], 0);
    rows.finish(scores, l);
  }
  return scores;
}

std::vector<int64_t> induction_probe(int64_t vocab_size, const std::vector<int64_t>& excluded, int64_t period,
                                     uint64_t seed) {
  if (vocab_size <= static_cast<int64_t>(excluded.size())) throw Error("induction probe: no token left to draw");
  uint64_t state = seed;
  const auto next = [&] {  // SplitMix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  std::vector<int64_t> tokens;
  while (static_cast<int64_t>(tokens.size()) < period) {
    const auto id = static_cast<int64_t>(next() % static_cast<uint64_t>(vocab_size));
    if (std::find(excluded.begin(), excluded.end(), id) == excluded.end()) tokens.push_back(id);
  }
  return tokens;
}

void add_induction_scores(HeadRoleScores& scores, const at::Tensor& probe_attention, int64_t period, int64_t first) {
  const int64_t n = probe_attention.size(2);
  if (period < 1 || first + 2 * period > n) throw Error("induction: the probe's maps are shorter than two copies");
  // Query i of the second copy attends to i - period + 1.
  const std::vector<int64_t> queries = range(first + period, first + 2 * period);
  for (int64_t l = 0; l < probe_attention.size(0); ++l) {
    const at::Tensor a = probe_attention[l].to(at::kCPU, at::kDouble);
    const at::Tensor shifted = a.diagonal(-(period - 1), 1, 2);  // [H, n - period + 1]: A[i, i - period + 1]
    std::vector<int64_t> rows;
    for (const int64_t i : queries) rows.push_back(i - (period - 1));
    set_layer(scores, HeadRole::Induction, l, mean_over_rows(shifted, rows));
  }
}

}  // namespace attnscope
