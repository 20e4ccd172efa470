#pragma once
// The overview's attention thumbnails of a long text pooled from the blocks of maps its forward
// makes and drops (ForwardOptions::attention_blocks), so that they are ready when the forward is:
// making every map again after it costs about half as much as the forward (8,192 tokens).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "figures/figure_options.h"
#include "figures/magnitude_pooler.h"
#include "model/transformer.h"

namespace attnscope {

class OverviewPooler {
 public:
  // What a pooler held as each layer's blocks came that a later forward may resume from
  // (AttentionBlock::resumable; the rows before them pooled): what a decoder's text typed on at
  // its end or edited in its middle, whose forward makes the blocks from one of them on alone
  // (TextPipelineOptions::blocks_resume), is pooled on from.
  struct ResumePoint {
    int64_t n = 0, k = 1, side = 0;  // the text's tokens, cells' size and count a side
    // Per panel, side x side: the whole run's. A row's block rows before its own are final there:
    // a causal row's columns past its own token are zero, so no later row's cell reaches them.
    std::vector<std::vector<float>> values;
    struct Open {
      int64_t row = 0;
      // Per panel (layer-major, as values), the block row open at `row`: its columns before `row`
      // alone (the others zero), none where `row` starts a block row.
      std::vector<MagnitudePooler::OpenRow> panels;
      int64_t layers = 0;  // the layers whose block at `row` has come
    };
    std::vector<Open> opens;  // increasing rows
    // Whether a text of `tokens` tokens, its blocks from `from` on, is pooled on from it: a row it
    // holds, and cells of the same size.
    bool resumes(int64_t tokens, int64_t from, int max_cells) const;
    const Open* open_at(int64_t row) const;  // null where it holds none
  };

  // For a model of `layers` x `heads`; thumbnails at most `max_cells` a side, as grid_thumbnails'.
  // `from`: a run before's, that this one's blocks may resume from (ResumePoint::resumes).
  OverviewPooler(int64_t layers, int64_t heads, int max_cells, std::shared_ptr<const ResumePoint> from = {});
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
  // Where a run typed on from this one's text may resume, at `rows` alone (those its forward kept
  // column sums before: TextPipelineOptions::forward_kept), or every row it holds where empty:
  // null unless complete.
  std::shared_ptr<const ResumePoint> resume_point(const std::vector<int64_t>& rows = {}) const;
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
  // A run's first block: rows from `row` on (0, or the resume point's row).
  void start(int64_t n, int64_t row);
  void start_layer(int64_t layer);

  int64_t layers_, heads_;
  int max_cells_;
  std::shared_ptr<const ResumePoint> from_;
  int64_t n_ = 0, k_ = 1, side_ = 0, first_row_ = 0;
  std::vector<std::vector<float>> values_;  // per panel
  std::vector<int64_t> rows_done_;          // per layer
  int64_t layer_ = -1;                      // the layer being pooled
  std::vector<MagnitudePooler> poolers_;    // its panels'
  // What the panels' poolers held at each resumable block's row: the run before's rows before
  // first_row_, then this run's.
  std::vector<ResumePoint::Open> opens_;
  // A layer's resumable block at `row` came: what its panels' poolers held before it.
  void keep_open_rows(int64_t layer, int64_t row);
};

}  // namespace attnscope
