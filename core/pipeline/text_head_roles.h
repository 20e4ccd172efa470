#pragma once
// The head roles of a text as the command line and the explorer show them: the roles from the
// text's own maps, each layer with the reach its model gives it (a band in ModernBERT's local
// layers), and induction from one more run of the model, on the probe (random tokens of its
// vocabulary, special tokens left out, repeated twice inside the tokenizer's template).
#include "base/progress.h"
#include "analysis/head_roles.h"
#include "model/checkpoint.h"

namespace attnscope {

class RoleRowsFromBlocks;

// What a long text's roles leave for the roles of the same text typed on at its end: each layer's
// rows' contributions (analysis/head_roles.h: LayerRoleRows), of these ids, by this model.
struct TextRoleRows {
  const Transformer* model = nullptr;
  std::vector<int64_t> ids;
  std::vector<LayerRoleRows> layers;
};

struct TextHeadRolesOptions {
  int64_t induction_period = 50;  // METHOD.md's T
  uint64_t induction_seed = 2022;
  bool induction = true;         // false: no probe run, induction left undefined
  ProgressReport progress = {};  // given: "head roles" begun, then a long text's share of layers done
  KeepGoing keep_going = {};     // asked before each block of a long text's maps made again
  int64_t block_rows = 0;        // query rows per block of a long text's maps; 0: about 32 MB (tests set a few)
  // Given: a long text's rows' contributions kept here for the next text's roles.
  TextRoleRows* keep = nullptr;
  // Given: those of the text before, by the same model: a decoder's rows of the tokens both texts
  // start with are taken from it (their maps' rows are the same), the later rows' maps alone made
  // again. The scores are then within rounding of a run from scratch (a block's maps made again are
  // their values within rounding, not their bits, wherever the block starts). Ignored otherwise.
  const TextRoleRows* resume = nullptr;
  // Given: a long text's rows added from its forward's blocks (pipeline/role_rows_from_blocks.h);
  // each layer whose rows all came is taken from there, its maps not made again.
  RoleRowsFromBlocks* from_blocks = nullptr;
};

// The leading rows of a text of these ids whose role rows a long text's roles take from `resume`:
// the tokens it shares with that text's start, where every layer is causal and the model the
// same; else none.
int64_t role_rows_taken(const Transformer& model, const std::vector<int64_t>& ids, const TextRoleRows* resume);

HeadRoleScores text_head_roles(const Checkpoint& checkpoint, const TextRun& run,
                               const TextHeadRolesOptions& options = {});
// Every role but induction (left undefined) of a text of these ids, from its maps or, where its
// forward kept queries and keys instead, from its maps made again (options.induction is not read).
HeadRoleScores text_role_scores(const Transformer& model, const TextCaptures& captures, const std::vector<int64_t>& ids,
                                const TextHeadRolesOptions& options = {});
// Induction alone (every other role undefined), from one run of the probe: it does not depend on
// the text, so the explorer runs it once per model. Throws attnscope::Error when the probe does not
// fit the model's positions.
HeadRoleScores probe_induction(const Checkpoint& checkpoint, const TextHeadRolesOptions& options = {});
// `from`'s induction scores written into `into` (of the same model).
void take_induction(HeadRoleScores& into, const HeadRoleScores& from);

// Each layer's reach in this model: a decoder's rows see no key after their own, a local layer's
// no key farther than its window.
std::vector<AttentionReach> attention_reach(const ModelConfig& config);

}  // namespace attnscope
