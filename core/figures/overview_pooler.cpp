#include "figures/overview_pooler.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "base/error.h"

namespace attnscope {

OverviewPooler::OverviewPooler(int64_t layers, int64_t heads, int max_cells)
    : layers_(layers), heads_(heads), max_cells_(max_cells), rows_done_(static_cast<size_t>(layers), 0) {}

// The cells' size is the one grid_thumbnails takes for n tokens.
void OverviewPooler::start(int64_t n) {
  n_ = n;
  k_ = n > max_cells_ ? (n + max_cells_ - 1) / max_cells_ : 1;
  side_ = (n + k_ - 1) / k_;
  values_.assign(static_cast<size_t>(layers_ * (heads_ + 1)), std::vector<float>(static_cast<size_t>(side_ * side_)));
  rows_done_.assign(static_cast<size_t>(layers_), 0);
  layer_ = -1;
}

bool OverviewPooler::pools(const FigureOptions& o) { return o.matrix == MatrixKind::Attention && !o.zero_diagonal; }

void OverviewPooler::add(int64_t layer, const AttentionBlock& block) {
  c10::InferenceMode guard;
  const at::Tensor& attention = block.maps;
  if (attention.dim() != 4 || attention.size(0) != 1 || attention.size(1) != heads_ || layer < 0 || layer >= layers_)
    throw Error("the overview pools one text's maps of a model of " + std::to_string(layers_) + " x " +
                std::to_string(heads_) + " heads");
  const RowSpan rows = block.rows;
  // A forward begun again (the CPU taking over from a GPU out of memory) pools again from the start.
  if (n_ == 0 || (layer == 0 && rows.first == 0)) start(block.n);
  const int64_t count = attention.size(2), width = attention.size(3);
  // A layer is pooled from its first row to its last before the next begins.
  if (block.n != n_ || count != rows.count || width != block.keys.count || block.keys.first < 0 ||
      block.keys.first + width > n_ || rows.first != rows_done_[static_cast<size_t>(layer)] ||
      rows.first + count > n_ || (layer != layer_ && rows.first != 0))
    throw Error("the overview's blocks of maps came out of order");
  if (layer != layer_) {
    layer_ = layer;
    poolers_.clear();
    for (int64_t h = 0; h <= heads_; ++h)
      poolers_.emplace_back(n_, k_, values_[static_cast<size_t>(layer * (heads_ + 1) + h)].data());
  }
  // As the thumbnails of a long text are made afterwards (overview_thumbnails.cpp): host floats,
  // the layer's sum over heads, every panel pooled on its own thread; the keys the block holds alone.
  const at::Tensor maps = attention.select(0, 0).to(at::kCPU, at::kFloat).contiguous();  // [H, rows, keys]
  const at::Tensor sum = maps.sum(0).contiguous();
  at::parallel_for(0, heads_ + 1, 1, [&](int64_t begin, int64_t end) {
    for (int64_t h = begin; h < end; ++h)
      poolers_[static_cast<size_t>(h)].add_rows(
          h == heads_ ? sum.data_ptr<float>() : maps.data_ptr<float>() + h * count * width, count, block.keys);
  });
  rows_done_[static_cast<size_t>(layer)] += count;
}

AttentionBlockSink OverviewPooler::sink() {
  return [this](int64_t layer, const AttentionBlock& block) { add(layer, block); };
}

int64_t OverviewPooler::layers_done() const {
  int64_t layers = 0;
  while (n_ > 0 && layers < layers_ && rows_done_[static_cast<size_t>(layers)] == n_) ++layers;
  return layers;
}

bool OverviewPooler::complete() const { return layers_done() == layers_; }

}  // namespace attnscope
