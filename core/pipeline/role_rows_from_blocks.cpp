#include "pipeline/role_rows_from_blocks.h"

#include <ATen/ATen.h>

#include <utility>

namespace attnscope {

void RoleRowsFromBlocks::start(const Transformer& model, const std::vector<int64_t>& ids) {
  model_ = &model;
  ids_ = ids;
  reach_ = attention_reach(model.config());
  layers_.assign(static_cast<size_t>(model.config().num_layers), std::nullopt);
  next_row_.assign(layers_.size(), 0);
}

void RoleRowsFromBlocks::add(int64_t layer, const AttentionBlock& block) {
  if (!model_ || layer < 0 || layer >= static_cast<int64_t>(layers_.size())) return;
  const auto l = static_cast<size_t>(layer);
  const auto n = static_cast<int64_t>(ids_.size());
  const int64_t first = block.rows.first;
  if (block.n != n || block.maps.size(0) != 1) {
    next_row_[l] = -1;
    return;
  }
  std::optional<LayerRoleRows>& rows = layers_[l];
  if (first == 0 || !rows) {  // the layer's first block (or its first again)
    rows.emplace(block.maps.size(1), n, ids_, reach_[l]);
    next_row_[l] = 0;
    // A continued forward's blocks from a later row on: the rows before are the text before's.
    if (first > 0) {
      if (role_rows_taken(*model_, ids_, resume_) < first) {
        next_row_[l] = -1;
        return;
      }
      rows->take_rows(resume_->layers[l], first);
      next_row_[l] = first;
    }
  }
  if (next_row_[l] != first) {
    next_row_[l] = -1;
    return;
  }
  rows->add(block.maps.select(0, 0), first, block.keys.first);
  next_row_[l] += block.rows.count;
}

AttentionBlockSink RoleRowsFromBlocks::sink() {
  return [this](int64_t layer, const AttentionBlock& block) { add(layer, block); };
}

bool RoleRowsFromBlocks::holds(const Transformer& model, const std::vector<int64_t>& ids) const {
  return model_ == &model && ids_ == ids;
}

std::optional<LayerRoleRows> RoleRowsFromBlocks::take_layer(int64_t l) {
  if (l < 0 || l >= static_cast<int64_t>(layers_.size())) return std::nullopt;
  const auto at = static_cast<size_t>(l);
  if (next_row_[at] != static_cast<int64_t>(ids_.size())) return std::nullopt;
  next_row_[at] = -1;
  return std::exchange(layers_[at], std::nullopt);
}

}  // namespace attnscope
