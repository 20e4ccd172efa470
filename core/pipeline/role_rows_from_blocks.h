#pragma once
// A long text's head roles from the blocks of maps its forward makes (ForwardOptions::
// attention_blocks) as they come: each layer's rows' contributions (analysis/head_roles.h:
// LayerRoleRows) added block by block, so that its roles make no map again: at 8,192 tokens of
// SmolLM2 the forward and its roles take 49.1 s so, 63.4 s with the maps made again
// (bench/RESULTS.md, "Head roles on a long text"). The roles read the forward's maps, to the bit.
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/head_roles.h"
#include "model/transformer.h"
#include "pipeline/text_head_roles.h"

namespace attnscope {

class RoleRowsFromBlocks {
 public:
  // `resume`: the role rows of the text run before by the same model (TextHeadRolesOptions::resume),
  // from which a layer whose blocks come from a later row on (a decoder's continued forward)
  // takes its rows before; null: such a layer is left to be made again.
  explicit RoleRowsFromBlocks(const TextRoleRows* resume = nullptr) : resume_(resume) {}

  // Before a forward of a text of `ids` by `model`.
  void start(const Transformer& model, const std::vector<int64_t>& ids);
  // The next block of a layer's maps, of the one text (maps [1, H, rows, keys]), as the forward
  // hands it out. A block out of order leaves its layer to be made again; a layer begun again from
  // its first row (the CPU taking over) starts again.
  void add(int64_t layer, const AttentionBlock& block);
  AttentionBlockSink sink();

  // Whether it holds the rows of a text of these ids by this model.
  bool holds(const Transformer& model, const std::vector<int64_t>& ids) const;
  // Layer l's rows with every row in, or null where they are not (then made again). Taken once.
  std::optional<LayerRoleRows> take_layer(int64_t l);

 private:
  const TextRoleRows* resume_;
  const Transformer* model_ = nullptr;
  std::vector<int64_t> ids_;
  std::vector<AttentionReach> reach_;
  std::vector<std::optional<LayerRoleRows>> layers_;
  std::vector<int64_t> next_row_;  // per layer: the row its next block begins at; -1: given up
};

}  // namespace attnscope
