#pragma once
// Head roles (METHOD.md, "Head roles"; "Decoders" for the sink score and rate): for every head a
// score in [0, 1] per role, from its attention map on the text (induction: on a probe of random
// tokens repeated twice), and the role a head is labelled with: its highest score at or above the
// threshold. A score the text gives no positions for (a one-token text, no repeated token, no probe
// run, a role of encoders on a decoder) is std::nullopt, not 0.
#include <ATen/ATen.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace attnscope {

enum class HeadRole { PreviousToken, NextToken, FirstToken, EndToken, DuplicateToken, Induction, Broad };
inline constexpr std::array<HeadRole, 7> kHeadRoles = {
    HeadRole::PreviousToken,  HeadRole::NextToken, HeadRole::FirstToken, HeadRole::EndToken,
    HeadRole::DuplicateToken, HeadRole::Induction, HeadRole::Broad};
std::string_view head_role_name(HeadRole role);  // "previous token", ...

// The keys query i may see: i - before .. i + after (-1: no bound that way). An encoder sees every
// key; a decoder none after it (after = 0), a sliding-window layer of width w the last w
// (before = w - 1); ModernBERT's local layers a band (before = after = its half window).
struct AttentionReach {
  int64_t before = -1, after = -1;
  bool sees_ahead() const { return after != 0; }
  int64_t visible(int64_t i, int64_t n) const;  // how many keys query i sees in a text of n tokens
};

struct HeadRoleSettings {
  double threshold = 0.4;       // a role is a head's when its score is at least this (METHOD.md's choice)
  double sink_threshold = 0.3;  // a head is a sink when its first-token score is at least this
};

class HeadRoleScores {
 public:
  HeadRoleScores(int64_t layers, int64_t heads);
  int64_t layers() const { return layers_; }
  int64_t heads() const { return heads_; }
  std::optional<double> score(HeadRole role, int64_t layer, int64_t head) const;
  void set(HeadRole role, int64_t layer, int64_t head, std::optional<double> value);

  // The role with the highest score at or above the threshold (ties: the earlier role).
  std::optional<HeadRole> strongest(int64_t layer, int64_t head, const HeadRoleSettings& settings = {}) const;
  // The share of heads whose first-token score is at least the sink threshold: of one layer, or
  // (layer -1) of the model.
  double sink_rate(const HeadRoleSettings& settings = {}, int64_t layer = -1) const;

 private:
  size_t at(HeadRole role, int64_t layer, int64_t head) const;
  int64_t layers_, heads_;
  std::vector<std::optional<double>> scores_;
};

// Every role but induction of one layer, from its maps given block by block of query rows (a long
// text's, never whole): what each row contributes is kept, O(H n), and the means taken at the end.
class LayerRoleRows {
 public:
  LayerRoleRows(int64_t heads, int64_t n, const std::vector<int64_t>& ids, AttentionReach reach);
  // block: the maps' rows first .. first + rows - 1, [H, rows, keys] (any device and float type),
  // their keys first_key .. first_key + keys - 1: every key (n of them), or at least every one
  // those rows may see (the others' attention is 0).
  void add(const at::Tensor& block, int64_t first, int64_t first_key = 0);
  void finish(HeadRoleScores& scores, int64_t layer) const;
  // The first `rows` rows' contributions taken from `before`, the same layer's on a text whose
  // first `rows` tokens are these (a decoder's text typed on at its end: a query row's map there
  // is the same); only where this layer sees no key after its query (each row's values hang on
  // the keys before it alone). Throws attnscope::Error otherwise.
  void take_rows(const LayerRoleRows& before, int64_t rows);

 private:
  int64_t n_;
  std::vector<int64_t> ids_;
  AttentionReach reach_;
  std::vector<int64_t> earlier_;  // each position's previous occurrence of its token, or -1
  // [H, n] float64, per query row: A[i, i-1], A[i, 0], A[i, i+1], A[i, n-1], the attention to earlier
  // occurrences of its token, the row's entropy.
  at::Tensor previous_, first_, next_, end_, duplicate_, entropy_;
};

// Every role but induction, from the text's maps [L, H, n, n] (float, any device) and its ids;
// `reach` gives each layer's (one for all when it has one entry).
HeadRoleScores head_role_scores(const at::Tensor& attention, const std::vector<int64_t>& ids,
                                const std::vector<AttentionReach>& reach);

// The induction probe: `period` token ids drawn by SplitMix64 from `seed` (each draw modulo the
// vocabulary, those in `excluded` drawn again), to be run as start, the tokens, the tokens again.
std::vector<int64_t> induction_probe(int64_t vocab_size, const std::vector<int64_t>& excluded, int64_t period = 50,
                                     uint64_t seed = 2022);
// Induction scores from the probe's maps [L, H, n, n]: the mean, over the queries i of the second
// copy, of A[i, i - period + 1] (the token after the previous occurrence); the first copy starts
// at position `first`.
void add_induction_scores(HeadRoleScores& scores, const at::Tensor& probe_attention, int64_t period, int64_t first = 1);

}  // namespace attnscope
