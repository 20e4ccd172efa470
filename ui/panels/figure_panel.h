#pragma once
// A view that is one figure of the focused head or layer (head detail, separators, statistics,
// layers, attention lines): rebuilt only when the analysis or the choices change, drawn by the
// figure canvas, zoomable, with an export button.
#include <functional>
#include <string>

#include "figure_canvas.h"
#include "newest_request_job.h"
#include "figures/text_figures.h"
#include "panels/panel_context.h"
#include "rollout_job.h"
#include "tiled_figure_job.h"

namespace attnscope::ui {

using FigureBuilder = std::function<Figure(const AnalyzedTextView&, const FigureOptions&)>;
// The layers whose rollout a long text's figure draws (empty: none; text_figures.h).
using RolloutLayers = std::function<std::vector<int>(const TextAnalysis&, const FigureOptions&)>;

class FigurePanel {
 public:
  // `tiled`: how a long text's figure is built instead, its maps drawn from pyramids of tiles
  // rather than made whole (empty: as any other text's).
  explicit FigurePanel(FigureBuilder build, TiledBuilder tiled = {})
      : build_(std::move(build)), build_tiled_(std::move(tiled)) {}
  // `controls` draws the view's own choices above the figure and may change the state.
  PanelActions draw(const PanelContext& context, const std::function<void(ViewState&)>& controls = {},
                    const std::vector<CellHighlight>& highlights = {});
  const Figure& figure() const { return canvas_.figure(); }
  // A long text's figure drawn from tiles is dropped (its tiles and their textures, some 10 MB a
  // map, 22 maps in the Layers view), and its rollouts with it past kRolloutBytesKeptHidden:
  // called while another view is shown; they are made again when this one is.
  void release_tiles();
  // A long text's rollouts after the layers `which` says are made off the UI thread (RolloutJob)
  // before its figure is built, a progress bar shown meanwhile; `notify` wakes the window as it
  // moves. Without this, a long text's rollout is refused in one line (the figure builder's).
  void make_rollouts_beside(RolloutLayers which, std::function<void()> notify);
  // A long text's figure is built, the top level of each of its maps made, off the UI thread
  // (TiledFigureJob), a progress bar shown meanwhile; `notify` wakes the window as it moves.
  // Without this, the maps are made on the UI thread, a slice each frame.
  void make_maps_beside(std::function<void()> notify);
  // One layer's rollout at 11,000 tokens: the Head view's is kept while hidden (minutes to make
  // again), a Layers view's dozen at 8,192 tokens (3 GB) is not.
  static constexpr double kRolloutBytesKeptHidden = 512e6;
  // The rollout of the mean attention after `layer` of snapshot `serial`, once this view's job has
  // made it for its figure (alone, as the Pairs view asks); undefined before.
  at::Tensor rollout_made(uint64_t serial, int layer) const;
  // A rollout, or the maps, this view shows are being made (no figure yet).
  bool waiting() const { return waiting_; }
  // How many times the rollout and map jobs have reported: the window draws a frame when this changes.
  uint64_t job_updates() const {
    return (rollouts_ ? rollouts_->updates() : 0) + (tiled_figures_ ? tiled_figures_->updates() : 0);
  }
  float zoom = 1.0f;
  bool reveal_highlight = false;  // the next draw scrolls to the first highlighted token
  PyramidOptions tiles;           // a long text's tiled maps

 private:
  void rebuild(const PanelContext& c, const FigureOptions& options);
  KeptRollouts kept_rollouts(const PanelContext& c, const std::vector<int>& layers, bool of_norm);
  void hand_outlines(const PanelContext& c);
  // The figure of a long text with its maps' top levels made beside the window: set once made,
  // else asked for (waiting_).
  void set_tiled_figure(const PanelContext& c, const FigureOptions& options, const KeptRollouts& rollouts);
  bool jobs_busy() const;
  void draw_progress() const;

  FigureBuilder build_;
  TiledBuilder build_tiled_;
  FigureCanvas canvas_;
  std::string key_;  // what the figure was built from
  std::string error_;
  std::unique_ptr<RolloutJob> rollouts_;           // a long text's rollouts, made beside the window
  std::unique_ptr<TiledFigureJob> tiled_figures_;  // a long text's figures, their maps made beside the window
  RolloutLayers rollout_layers_;                   // which of them a figure needs
  // A long text's lens head's outlines (MapSource::make_outlined), made beside the window.
  std::unique_ptr<NewestRequestJob<MapSource::Outlined>> outlines_;
  bool waiting_ = false;  // for the rollouts or the maps key_ needs
  // Attention lines: the token under the mouse, and the one a click pinned (side, index).
  std::pair<int, int> lines_hovered_{-1, -1}, lines_pinned_{-1, -1};
};

// Export button, zoom slider, and the figure fitted to the rest of the panel (Ctrl + wheel zooms,
// dragging pans); an export click goes to `actions`.
// `reveal`: scrolls the figure to the first highlighted token (a pair's, in a long text).
CanvasHover draw_zoomable_figure(FigureCanvas& canvas, float& zoom, const PanelContext& context, PanelActions& actions,
                                 const std::vector<CellHighlight>& highlights = {}, bool reveal = false);

// Key of a figure: the snapshot it came from and every choice that changes it.
std::string figure_key(uint64_t serial, const FigureOptions& options);

}  // namespace attnscope::ui
