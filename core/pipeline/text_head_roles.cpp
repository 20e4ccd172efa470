#include "pipeline/text_head_roles.h"

#include <algorithm>

#include "base/error.h"
#include "model/reproducible_products.h"
#include "pipeline/role_rows_from_blocks.h"

namespace attnscope {

std::vector<AttentionReach> attention_reach(const ModelConfig& config) {
  std::vector<AttentionReach> reach(static_cast<size_t>(config.num_layers));
  for (size_t l = 0; l < reach.size(); ++l) {
    if (config.causal()) reach[l].after = 0;
    if (config.is_local_layer(l)) {
      reach[l].before = config.rotary.local_window;
      if (!config.causal()) reach[l].after = config.rotary.local_window;
    }
  }
  return reach;
}

HeadRoleScores probe_induction(const Checkpoint& checkpoint, const TextHeadRolesOptions& options) {
  const ModelConfig& config = checkpoint.model().config();
  HeadRoleScores scores(config.num_layers, config.num_heads);
  const Tokenizer& tokenizer = checkpoint.tokenizer();
  const std::vector<int64_t> probe =
      induction_probe(config.vocab_size, tokenizer.special_ids(), options.induction_period, options.induction_seed);
  std::vector<Token> pieces;
  for (int copy = 0; copy < 2; ++copy)
    for (const int64_t id : probe) pieces.push_back(Token{static_cast<int32_t>(id), "", 0, 0, false});
  const size_t wanted = pieces.size() + 2;
  const Encoding encoding = tokenizer.wrap(std::move(pieces), wanted);
  // Where the first copy starts: after the template's tokens before the pieces.
  size_t first = 0;
  while (first < encoding.tokens.size() && encoding.tokens[first].special) ++first;
  if (encoding.size() < first + 2 * static_cast<size_t>(options.induction_period) ||
      static_cast<int64_t>(encoding.size()) > config.max_tokens())
    throw Error("the induction probe (" + std::to_string(2 * options.induction_period) +
                " tokens) does not fit this model's positions");
  const std::vector<TextRun> probe_run = checkpoint.run({encoding});
  add_induction_scores(scores, probe_run.front().captures.attention, options.induction_period,
                       static_cast<int64_t>(first));
  return scores;
}

void take_induction(HeadRoleScores& into, const HeadRoleScores& from) {
  for (int64_t l = 0; l < into.layers(); ++l)
    for (int64_t h = 0; h < into.heads(); ++h)
      into.set(HeadRole::Induction, l, h, from.score(HeadRole::Induction, l, h));
}

int64_t role_rows_taken(const Transformer& model, const std::vector<int64_t>& ids, const TextRoleRows* resume) {
  if (!resume || resume->model != &model || !model.config().causal() ||
      static_cast<int64_t>(resume->layers.size()) != model.config().num_layers)
    return 0;
  return std::mismatch(ids.begin(), ids.end(), resume->ids.begin(), resume->ids.end()).first - ids.begin();
}

namespace {

// Layer l's rows as its forward's blocks made them (TextHeadRolesOptions::from_blocks), or none.
std::optional<LayerRoleRows> rows_from_blocks(const Transformer& model, const std::vector<int64_t>& ids,
                                              const TextHeadRolesOptions& options, int64_t l) {
  if (!options.from_blocks || !options.from_blocks->holds(model, ids)) return std::nullopt;
  return options.from_blocks->take_layer(l);
}

// A long text's roles: each layer's maps made again block by block of query rows (about 32 MB of
// attention each, at most) from the queries and keys its forward kept, never whole, and of each
// block only the keys its rows may see: a decoder's block the keys up to its last row, a
// sliding-window layer's a band, which at 32,768 tokens is a few hundredths of the whole. They are
// the maps' values within rounding, not their bits, which the roles' means do not need. A layer
// whose rows came with its forward's blocks (options.from_blocks) is taken from there instead.
HeadRoleScores roles_from_recomputed_maps(const Transformer& model, const TextCaptures& c,
                                          const std::vector<int64_t>& ids, const std::vector<AttentionReach>& reach,
                                          const TextHeadRolesOptions& options) {
  const int64_t L = c.num_layers, H = c.num_heads, n = c.length;
  const int64_t from = role_rows_taken(model, ids, options.resume);
  // The rows after those taken, in blocks of at least the fewest rows a product makes alone.
  const int64_t start = std::min(from, std::max<int64_t>(0, n - kFewestBlockRows));
  auto blocks = row_blocks(n - start, rows_per_block(H * n, options.block_rows));
  for (auto& block : blocks) block.first += start;
  const AttentionScores& maker = model.attention_scores();
  HeadRoleScores scores(L, H);
  if (options.keep) *options.keep = {&model, ids, {}};
  for (int64_t l = 0; l < L; ++l) {
    std::optional<LayerRoleRows> taken = rows_from_blocks(model, ids, options, l);
    LayerRoleRows rows = taken ? std::move(*taken) : LayerRoleRows(H, n, ids, reach[static_cast<size_t>(l)]);
    if (!taken) {
      if (from > 0) rows.take_rows(options.resume->layers[static_cast<size_t>(l)], from);
      const Transformer::RecomputeInputs inputs = model.recompute_inputs(c.queries[l], c.keys[l], l);
      for (const auto& [first, count] : blocks) {
        stop_if_stale(options.keep_going);
        const KeySpan keys = maker.visible_keys(l, n, {first, count});
        rows.add(maker.recompute(inputs, {first, count}, keys), first, keys.first);
      }
    }
    rows.finish(scores, l);
    if (options.keep) options.keep->layers.push_back(std::move(rows));
    if (options.progress) options.progress("head roles", static_cast<double>(l + 1) / static_cast<double>(L));
  }
  return scores;
}

}  // namespace

HeadRoleScores text_role_scores(const Transformer& model, const TextCaptures& captures, const std::vector<int64_t>& ids,
                                const TextHeadRolesOptions& options) {
  const std::vector<AttentionReach> reach = attention_reach(model.config());
  return captures.attention.defined() ? head_role_scores(captures.attention, ids, reach)
                                      : roles_from_recomputed_maps(model, captures, ids, reach, options);
}

HeadRoleScores text_head_roles(const Checkpoint& checkpoint, const TextRun& run, const TextHeadRolesOptions& options) {
  if (options.progress) options.progress("head roles", kShareUnknown);  // a long text's layers report their share
  HeadRoleScores scores = text_role_scores(checkpoint.model(), run.captures, run.encoding.ids(), options);
  if (options.induction) take_induction(scores, probe_induction(checkpoint, options));
  return scores;
}

}  // namespace attnscope
