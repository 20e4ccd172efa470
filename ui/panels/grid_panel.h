#pragma once
// The overview: a thumbnail of the chosen matrix for every layer and head, plus each layer's sum;
// above them, when asked, the role grid (panels/role_grid.h).
#include <imgui.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gl/heatmap_renderer.h"
#include "overview_job.h"
#include "panels/panel_context.h"
#include "panels/role_grid.h"

namespace attnscope::ui {

class GridPanel {
 public:
  // `notify` wakes the window when a long text's overview, coloured off the UI thread, moves on.
  explicit GridPanel(std::function<void()> notify = {}) : job_(notify), export_job_(notify) {}
  PanelActions draw(const PanelContext& context);
  // A long text's thumbnails, or its figure to export, are being made off the UI thread (a
  // screenshot waits for them).
  bool colouring() const { return waiting_for_job_ || !exporting_.empty(); }
  // Counts the jobs' reports: a new count asks for a frame.
  uint64_t job_updates() const { return job_.updates() + export_job_.updates(); }

 private:
  struct Tile {
    ImVec2 at;                // where the thumbnail goes, in screen pixels
    std::array<float, 4> uv;  // its part of the atlas
  };
  void draw_controls(const PanelContext& context, ViewState& state, PanelActions& actions);
  static const RunProgress* filling(const PanelContext& context);
  bool thumbnails_ready(const PanelContext& context);
  std::vector<Tile> draw_tile_frames(const PanelContext& context, ViewState& state, PanelActions& actions,
                                     float label_w, float pitch, float side);
  void rebuild(const PanelContext& context);
  bool take_coloured(const PanelContext& context);
  void export_figure(const PanelContext& context, PanelActions& actions);
  void take_exported(PanelActions& actions);
  HeatmapAtlas thumbnails_;  // layer-major, H + 1 per layer (the last: the sum), one tile each
  std::string key_;
  std::string error_;  // why the thumbnails could not be made (e.g. a lens whose captures this run lacks)
  int heads_ = 0;
  std::shared_ptr<const Figure> exported_;  // the same grid as a figure, for export
  RoleGrid roles_;
  OverviewJob job_;               // a long text's thumbnails with options its run did not colour
  bool waiting_for_job_ = false;  // key_'s thumbnails are the job's, not made yet
  // A long text's figure to export, made off the UI thread (its thumbnails at kLongGridCells a
  // side: seconds to minutes at 8,192 tokens); the key of the one asked, empty when none is.
  NewestRequestJob<std::shared_ptr<const Figure>> export_job_;
  std::string exporting_;
};

}  // namespace attnscope::ui
