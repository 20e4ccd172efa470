#include "panels/grid_panel.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/error_message.h"
#include "figures/text_figures.h"
#include "controls/view_controls.h"
#include "gl/opaque_draws.h"
#include "widgets.h"

namespace attnscope::ui {
namespace {

// A 2-pixel frame around a thumbnail: four strips, no antialiased fringe, nothing drawn under it.
void draw_frame(ImDrawList* draw, ImVec2 at, ImVec2 size, ImU32 colour) {
  const ImVec2 end(at.x + size.x, at.y + size.y);
  draw->AddRectFilled(at, ImVec2(end.x, at.y + 2), colour);
  draw->AddRectFilled(ImVec2(at.x, end.y - 2), end, colour);
  draw->AddRectFilled(ImVec2(at.x, at.y + 2), ImVec2(at.x + 2, end.y - 2), colour);
  draw->AddRectFilled(ImVec2(end.x - 2, at.y + 2), ImVec2(end.x, end.y - 2), colour);
}

}  // namespace

// The worker has usually coloured the thumbnails already (the overview was shown when the run
// was asked for); otherwise, or with other options since, a short text's are made here, a long
// text's by the job (its maps are made again: seconds, minutes for its rollout), the window free
// meanwhile.
void GridPanel::rebuild(const PanelContext& c) {
  const AnalysisSnapshot& s = *c.snapshot;
  heads_ = static_cast<int>(s.analysis.num_heads);
  const FigureOptions o = figure_options(c.state);
  if (s.grid_options && grid_thumbnails_key(*s.grid_options) == grid_thumbnails_key(o)) {
    job_.cancel();
    thumbnails_ = HeatmapRenderer::upload(s.grid);
  } else if (s.captures.attention.defined() || !c.snapshot_owner) {  // a short text's maps are kept
    job_.cancel();
    thumbnails_ = HeatmapRenderer::upload(grid_atlas(s.view(), o));
  } else {
    submit_overview(job_, c.snapshot_owner, o);
    waiting_for_job_ = true;
    take_coloured(c);
  }
}

// The job's thumbnails once it has made those asked (its error said); false while it works on them.
bool GridPanel::take_coloured(const PanelContext& c) {
  const auto made = job_.latest();
  if (!made || made->key != overview_request_key(c.snapshot->serial, figure_options(c.state))) return false;
  waiting_for_job_ = false;
  if (!made->error.empty()) throw Error(made->error);
  thumbnails_ = HeatmapRenderer::upload(made->value);
  return true;
}

// The matrix shown, its rollout option and the export button, above the thumbnails.
void GridPanel::draw_controls(const PanelContext& c, ViewState& state, PanelActions& actions) {
  int matrix = static_cast<int>(state.matrix);
  ImGui::TextUnformatted("matrix");
  for (int k = 0; k < kMatrixKinds; ++k) {
    ImGui::SameLine();
    ImGui::RadioButton(matrix_name(static_cast<MatrixKind>(k)), &matrix, k);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", matrix_help(static_cast<MatrixKind>(k)));
  }
  if (state.matrix == MatrixKind::Rollout &&
      flowing_check("through the norm-based maps", &state.rollout_of_norm,
                    "Roll out the layers' norm-based maps (Kobayashi et al. 2020) instead of their mean attention."))
    actions.state = state;
  if (flowing_check("head roles", &state.head_roles,
                    "Every head's strongest role (previous token, first token or sink, induction, ...) above the maps"))
    actions.state = state;
  same_line_if_fits(button_width("Export..."));
  if (c.snapshot && ImGui::Button("Export...")) export_figure(c, actions);
  if (!exporting_.empty()) take_exported(actions);
  if (matrix != static_cast<int>(state.matrix)) {
    state.matrix = static_cast<MatrixKind>(matrix);
    actions.state = state;
  }
}

// The grid as a figure for the export dialog: a short text's made here, a long text's by the
// export job (its progress shown until take_exported hands it over).
void GridPanel::export_figure(const PanelContext& c, PanelActions& actions) {
  const FigureOptions o = figure_options(c.state);
  if (c.snapshot->captures.attention.defined() || !c.snapshot_owner) {
    try {
      exported_ = std::make_shared<const Figure>(grid_figure(c.snapshot->view(), o));
      actions.export_figure = exported_.get();
    } catch (const std::exception& e) {
      error_ = error_message(e);
    }
    return;
  }
  exporting_ = "export|" + overview_request_key(c.snapshot->serial, o);
  export_job_.submit(exporting_, [snapshot = c.snapshot_owner, o](const JobControl& control) {
    LongTextThumbnails long_text;
    long_text.keep_going = control.keep_going;
    long_text.progress = [&](std::string_view, double fraction) { control.progress(fraction); };
    return std::make_shared<const Figure>(grid_figure(snapshot->view(), o, long_text));
  });
}

void GridPanel::take_exported(PanelActions& actions) {
  const auto made = export_job_.latest();
  if (!made || made->key != exporting_) {
    const double done = export_job_.fraction().value_or(0.0);
    char overlay[80];
    std::snprintf(overlay, sizeof overlay, "making the figure to export: %.0f%%", 100 * done);
    ImGui::ProgressBar(static_cast<float>(done), ImVec2(-1, 0), overlay);
    return;
  }
  exporting_.clear();
  export_job_.take_latest();  // `made` is all that holds it now
  if (!made->error.empty()) {
    error_ = made->error;
    return;
  }
  exported_ = made->value;
  actions.export_figure = exported_.get();
}

// A long text's run under way whose forward has pooled some layers of the overview shown: those
// are shown as they come (the rest clear), in place of the last text's.
const RunProgress* GridPanel::filling(const PanelContext& c) {
  return c.run && c.run->overview &&
                 grid_thumbnails_key(c.run->overview_options) == grid_thumbnails_key(figure_options(c.state))
             ? c.run
             : nullptr;
}

// The thumbnails of this snapshot (or of the run filling them) with these options, made once;
// false (and error_ said, or the job's progress shown) when they cannot be shown yet.
bool GridPanel::thumbnails_ready(const PanelContext& c) {
  const RunProgress* run = filling(c);
  const std::string key = run ? "run " + std::to_string(run->serial) + "|" + std::to_string(run->layers_done)
                              : std::to_string(c.snapshot->serial) + "|" + grid_thumbnails_key(figure_options(c.state));
  if (key != key_ || waiting_for_job_) {
    const bool changed = key != key_;
    key_ = key;
    if (changed) {
      error_.clear();
      waiting_for_job_ = false;
    }
    try {
      if (run) {
        thumbnails_ = HeatmapRenderer::upload(*run->overview);
        heads_ = run->overview->columns - 1;
      } else if (changed) {
        rebuild(c);
      } else {
        take_coloured(c);
      }
    } catch (const std::exception& e) {
      thumbnails_ = {};
      error_ = error_message(e);
    }
  }
  if (waiting_for_job_) {
    const double done = job_.fraction().value_or(0.0);
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "making the overview of this long text: %.0f%%", 100 * done);
    ImGui::ProgressBar(static_cast<float>(done), ImVec2(-1, 0), overlay);
    return false;
  }
  if (error_.empty()) return true;
  ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
  return false;
}

PanelActions GridPanel::draw(const PanelContext& c) {
  PanelActions actions;
  ViewState state = c.state;
  draw_controls(c, state, actions);
  if (!c.snapshot && !filling(c)) {
    ImGui::TextDisabled("Waiting for the first analysis...");
    return actions;
  }
  if (state.head_roles && c.snapshot) roles_.draw(c, state, actions);
  if (!thumbnails_ready(c)) return actions;
  const int columns = heads_ + 1;
  const float label_w = ImGui::CalcTextSize("L00").x + 8;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  // The width of a scroll bar is always kept free: when the rows need one, it no longer cuts the
  // last column (and a width measured inside the child would change as the bar comes and goes).
  const float width = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
  const float side = std::clamp((width - label_w - columns * (spacing + 4)) / columns, 24.0f, 160.0f);
  ImGui::BeginChild("grid", ImVec2(0, 0), false);
  ImGui::Dummy(ImVec2(label_w, 0));
  for (int h = 0; h < columns; ++h) {
    ImGui::SameLine(label_w + h * (side + spacing + 4) + 4);
    if (h == heads_)
      ImGui::TextUnformatted("sum");
    else
      ImGui::Text("h%d", h);
  }
  const std::vector<Tile> tiles = draw_tile_frames(c, state, actions, label_w, side + spacing + 4, side);
  // After the frames, in one draw of the atlas, without blending (the thumbnails are opaque).
  ImDrawList* draw = ImGui::GetWindowDrawList();
  begin_opaque_draws(draw);
  const auto texture = reinterpret_cast<ImTextureID>(static_cast<intptr_t>(thumbnails_.image.texture.get()));
  for (const auto& [at, uv] : tiles)
    draw->AddImage(texture, at, ImVec2(at.x + side, at.y + side), ImVec2(uv[0], uv[1]), ImVec2(uv[2], uv[3]));
  end_opaque_draws(draw);
  ImGui::EndChild();
  return actions;
}

// Each thumbnail's place as an invisible button with a frame (a click focuses its head in the
// Head view); returns where each thumbnail goes and its part of the atlas.
std::vector<GridPanel::Tile> GridPanel::draw_tile_frames(const PanelContext& c, ViewState& state, PanelActions& actions,
                                                         float label_w, float pitch, float side) {
  const int columns = heads_ + 1, layers = thumbnails_.rows;
  std::vector<Tile> tiles;
  tiles.reserve(static_cast<size_t>(layers * columns));
  for (int l = 0; l < layers; ++l) {
    ImGui::AlignTextToFramePadding();
    ImGui::Text("L%d", l);
    for (int h = 0; h < columns; ++h) {
      ImGui::SameLine(label_w + h * pitch);
      const bool focused =
          l == c.state.layer && (h == heads_ ? c.state.layer_sum : (!c.state.layer_sum && h == c.state.head));
      ImGui::PushID(l * columns + h);
      // An outline and the image, not an ImageButton: its filled frame under the image doubled the
      // pixels a software rasteriser shades for the overview (the frame drawn while a run is under
      // way takes its cores from the model).
      const ImVec2 at = ImGui::GetCursorScreenPos();
      const ImVec2 size(side + 4, side + 4);
      if (ImGui::InvisibleButton("thumbnail", size)) {
        state.layer = l;
        state.layer_sum = h == heads_;
        if (h < heads_) state.head = h;
        state.view = View::Head;
        actions.state = state;
      }
      const ImU32 border = focused                  ? IM_COL32(255, 191, 0, 255)
                           : ImGui::IsItemActive()  ? ImGui::GetColorU32(ImGuiCol_ButtonActive)
                           : ImGui::IsItemHovered() ? ImGui::GetColorU32(ImGuiCol_ButtonHovered)
                                                    : IM_COL32(51, 51, 51, 255);
      draw_frame(ImGui::GetWindowDrawList(), at, size, border);
      tiles.push_back({ImVec2(at.x + 2, at.y + 2), thumbnails_.uv(l * columns + h)});
      if (ImGui::IsItemHovered()) ImGui::SetTooltip(h == heads_ ? "layer %d, sum of heads" : "layer %d, head %d", l, h);
      ImGui::PopID();
    }
  }
  return tiles;
}

}  // namespace attnscope::ui
