#pragma once
// What every panel reads each frame, and what it may ask the explorer to do. Panels never
// reach into each other: they return actions.
#include <memory>
#include <optional>

#include "analysis_worker.h"
#include "figures/figure.h"
#include "gl/heatmap_renderer.h"
#include "view_state.h"

namespace attnscope::ui {

struct PanelContext {
  const AnalysisSnapshot* snapshot;  // the newest good analysis, or null
  const ViewState& state;
  const HeatmapRenderer& renderer;
  float figure_font;  // pixels
  // A long text's run under way, when it has reported a layer (AnalysisWorker::progress).
  const RunProgress* run = nullptr;
  // `snapshot`, for what a panel keeps across frames that reads it (a long text's tiled map).
  std::shared_ptr<const AnalysisSnapshot> snapshot_owner = nullptr;
};

struct PanelActions {
  std::optional<ViewState> state;         // focus, matrix, view ... changed
  const Figure* export_figure = nullptr;  // the user asked to export this figure
  bool more_frames = false;               // part of the view is still being made: draw again soon
};

}  // namespace attnscope::ui
