#pragma once
// The overview's attention thumbnails of a long text pooled from the blocks of maps its forward
// makes and drops (ForwardOptions::attention_blocks), so that they are ready when the forward is:
// making every map again after it costs about half as much as the forward (8,192 tokens).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "figures/figure_options.h"
#include "figures/magnitude_pooler.h"
#include "model/transformer.h"

namespace attnscope {

class OverviewPooler {
 public:
  // For a model of `layers` x `heads`; thumbnails at most `max_cells` a side, as grid_thumbnails'.
  OverviewPooler(int64_t layers, int64_t heads, int max_cells);
  OverviewPooler(const OverviewPooler&) = delete;
  OverviewPooler& operator=(const OverviewPooler&) = delete;

  // The next block of a layer's maps, of one text (maps [1, H, rows, keys]), on any device and in
  // any precision; rows in order. Throws attnscope::Error for blocks out of order or of a batch.
  void add(int64_t layer, const AttentionBlock& block);
  // `add` as the forward calls it; the pooler must outlive the run.
  AttentionBlockSink sink();
  // Whether these options' thumbnails are the ones it pools: attention, its diagonal kept.
  static bool pools(const FigureOptions& options);

  // Every row of every layer's maps has come (a run that stopped, or that kept its maps, leaves it short).
  bool complete() const;
  // Layers whose every row has come, counted from the first: the overview so far.
  int64_t layers_done() const;
  int64_t layers() const { return layers_; }
  int64_t heads() const { return heads_; }
  int64_t length() const { return n_; }  // the text's tokens; 0 before the first block
  int max_cells() const { return max_cells_; }
  // Panel p (layer-major, H + 1 a layer: each head's map, then the layer's sum), pooled as
  // grid_thumbnails pools the attention maps with their diagonal: side() x side() values.
  const std::vector<float>& values(size_t p) const { return values_[p]; }
  int64_t side() const { return side_; }

 private:
  void start(int64_t n);

  int64_t layers_, heads_;
  int max_cells_;
  int64_t n_ = 0, k_ = 1, side_ = 0;
  std::vector<std::vector<float>> values_;  // per panel
  std::vector<int64_t> rows_done_;          // per layer
  int64_t layer_ = -1;                      // the layer being pooled
  std::vector<MagnitudePooler> poolers_;    // its panels'
};

}  // namespace attnscope
