#include "figures/overview_pooler.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <utility>

#include "base/error.h"

namespace attnscope {

namespace {

// The cells' size grid_thumbnails takes for n tokens.
int64_t cell_size(int64_t n, int max_cells) { return n > max_cells ? (n + max_cells - 1) / max_cells : 1; }

}  // namespace

bool OverviewPooler::ResumePoint::resumes(int64_t tokens, int64_t from, int max_cells) const {
  return from > 0 && from < tokens && cell_size(tokens, max_cells) == k && open_at(from);
}

const OverviewPooler::ResumePoint::Open* OverviewPooler::ResumePoint::open_at(int64_t row) const {
  const auto at = std::find_if(opens.begin(), opens.end(), [row](const Open& o) { return o.row == row; });
  return at == opens.end() ? nullptr : &*at;
}

OverviewPooler::OverviewPooler(int64_t layers, int64_t heads, int max_cells, std::shared_ptr<const ResumePoint> from)
    : layers_(layers),
      heads_(heads),
      max_cells_(max_cells),
      from_(std::move(from)),
      rows_done_(static_cast<size_t>(layers), 0) {}

void OverviewPooler::start(int64_t n, int64_t row) {
  const auto panels = static_cast<size_t>(layers_ * (heads_ + 1));
  if (row > 0 && (!from_ || !from_->resumes(n, row, max_cells_) || from_->values.size() != panels))
    throw Error("the overview's blocks of maps came out of order");
  n_ = n;
  k_ = cell_size(n, max_cells_);
  side_ = (n + k_ - 1) / k_;
  first_row_ = row;
  values_.assign(panels, std::vector<float>(static_cast<size_t>(side_ * side_)));
  rows_done_.assign(static_cast<size_t>(layers_), row);
  opens_.clear();
  layer_ = -1;
  if (row == 0) return;
  for (const ResumePoint::Open& open : from_->opens)
    if (open.row < row) opens_.push_back(open);
  // The block rows before the row's own are final: the rows before it are the run before's, and a
  // row's columns past its own token are zero, so a cell's largest magnitude is the same.
  const int64_t block_rows = row / k_, before = from_->side, columns = std::min(before, side_);
  for (size_t p = 0; p < panels; ++p)
    for (int64_t r = 0; r < block_rows; ++r)
      std::copy_n(from_->values[p].begin() + r * before, columns, values_[p].begin() + r * side_);
}

void OverviewPooler::start_layer(int64_t layer) {
  layer_ = layer;
  poolers_.clear();
  for (int64_t h = 0; h <= heads_; ++h) {
    const auto p = static_cast<size_t>(layer * (heads_ + 1) + h);
    poolers_.emplace_back(n_, k_, values_[p].data());
    if (first_row_ > 0) poolers_.back().resume(from_->open_at(first_row_)->panels[p]);
  }
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
  if (n_ == 0 || (layer == 0 && rows.first == 0)) start(block.n, rows.first);
  const int64_t count = attention.size(2), width = attention.size(3);
  // A layer is pooled from its first row to its last before the next begins.
  if (block.n != n_ || count != rows.count || width != block.keys.count || block.keys.first < 0 ||
      block.keys.first + width > n_ || rows.first != rows_done_[static_cast<size_t>(layer)] ||
      rows.first + count > n_ || (layer != layer_ && rows.first != first_row_))
    throw Error("the overview's blocks of maps came out of order");
  if (layer != layer_) start_layer(layer);
  if (block.resumable) keep_open_rows(layer, rows.first);
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

void OverviewPooler::keep_open_rows(int64_t layer, int64_t row) {
  // Layer 0's blocks come first: it opens each row's entry, the later layers fill theirs in.
  auto open = std::find_if(opens_.begin(), opens_.end(), [row](const ResumePoint::Open& o) { return o.row == row; });
  if (open == opens_.end()) {
    if (layer != 0) return;  // a layer laid out unlike the first: no run resumes here
    open = opens_.insert(opens_.end(), {row, std::vector<MagnitudePooler::OpenRow>(values_.size()), 0});
  }
  if (open->layers != layer) return;
  for (int64_t h = 0; h <= heads_; ++h) {
    MagnitudePooler::OpenRow held = poolers_[static_cast<size_t>(h)].open_row();
    const auto columns = static_cast<size_t>(row % k_ == 0 ? 0 : row);  // a causal row's columns before its own
    held.high.resize(std::min(held.high.size(), columns));
    held.low.resize(held.high.size());
    open->panels[static_cast<size_t>(layer * (heads_ + 1) + h)] = std::move(held);
  }
  ++open->layers;
}

std::shared_ptr<const OverviewPooler::ResumePoint> OverviewPooler::resume_point(
    const std::vector<int64_t>& rows) const {
  if (!complete()) return nullptr;
  auto point = std::make_shared<ResumePoint>(ResumePoint{n_, k_, side_, values_, {}});
  for (const ResumePoint::Open& open : opens_)
    if (open.layers == layers_ && (rows.empty() || std::find(rows.begin(), rows.end(), open.row) != rows.end()))
      point->opens.push_back(open);
  return point;
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
