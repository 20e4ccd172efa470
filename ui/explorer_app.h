#pragma once
// The explorer's window and the state it owns, shared by its parts: explorer.cpp (requests, model
// switching, shortcuts, the frame and the loop) and explorer_views.cpp (the tab bar and each
// view's panel with its controls). What tests and benchmarks drive the window with (screenshots,
// benchmarks, the idle check, --trace-shown) is a WindowScript of its own (window_script.h).
#include <glad/gl.h>  // before GLFW, which must not bring its own OpenGL header
#include <GLFW/glfw3.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis_worker.h"
#include "comparison_job.h"
#include "controls/view_controls.h"
#include "explorer.h"
#include "figures/query_key_figure.h"
#include "figures/text_figures.h"
#include "fonts.h"
#include "gl/heatmap_renderer.h"
#include "gl/partial_frames.h"
#include "layout_audit.h"
#include "panels/compare_panel.h"
#include "panels/corpus_panel.h"
#include "panels/export_dialog.h"
#include "panels/figure_panel.h"
#include "panels/grid_panel.h"
#include "panels/model_picker.h"
#include "panels/pairs_panel.h"
#include "panels/text_panel.h"
#include "settings_store.h"
#include "window.h"
#include "window_script.h"

namespace attnscope::ui {

// Frames drawn after an input event: the one that takes it in, and for the mouse one more for
// what it changed (a popup opened, a hover moved). A key's frame draws its own effect; one that
// changes the view asks for a frame more (see run). On a machine without a GPU every frame takes
// CPU from the model.
constexpr int kSettleFrames = 2;
// While a download or a corpus job runs, the window redraws this often to show its progress. An
// analysis redraws nothing while it runs (its worker wakes the window when it is done): frames
// drawn meanwhile would take CPU from the model on a machine without a GPU.
constexpr double kProgressPeriod = 0.25;

// The Layers view: Fig. 12 (`f`) with Fig. 13's panels after its own.
inline Figure with_figure13(Figure f, const AnalyzedTextView& text, const FigureOptions& options) {
  Figure distances = figure13(text, options);
  for (auto& p : distances.panels) f.panels.push_back(std::move(p));
  f.title = "Fig. 12 and 13: summed similarity and pooled pair distances per layer";
  return f;
}

class Explorer {
 public:
  Explorer(const ExplorerOptions& o, Settings settings, std::string settings_warning);
  int run();

 private:
  // Asks for a run of the editor's text (B too when B is another model on it). Every run asked for
  // starts once the frame being drawn is built, before it is rasterised (send_asked_runs), with the
  // text and settings as they then stand: without a GPU the frame and the forward then share the
  // cores instead of taking turns; a quick run starts instead of that frame (hold_for_quick_run).
  // The run under way is abandoned at once.
  void submit();
  void send_asked_runs();
  bool run_asked_ = false, run_b_asked_ = false;
  // After ImGui has built a frame: a run asked for that the last one says is quick (at most
  // ExplorerOptions::quick_run, 100 ms by default) is sent now and the frame held back; true when
  // it was. The next frame then shows the edit and its analysis together, one frame (10 to 20 ms
  // of both cores without a GPU) sooner; the edit itself shows at most that late, which a typist
  // does not notice. A slower model's edit shows at once.
  bool hold_for_quick_run();
  double hold_until_ = 0;  // > 0: a frame is held back until the run answers, input comes, or then
  bool needs_lenses() const;
  bool lenses_asked_ = false;  // the last request asked for the lenses' captures
  bool needs_roles() const;
  bool roles_asked_ = false;  // the last request asked for the head roles
  std::unique_ptr<AnalysisWorker> make_worker(const std::string& model) const {
    // The worker wakes the sleeping main loop when its answer is there.
    return std::make_unique<AnalysisWorker>(model, options_.device, options_.precision, [] { glfwPostEmptyEvent(); });
  }
  void switch_model(const std::string& model);
  void take_result(const ResultShown& result);
  // Once the worker's model is open: the view clamped to its shape; once per model, what opened
  // printed and a result file's text and analysis taken.
  void take_loaded_model();
  // Compare mode: B's worker runs B (another model on A's text, or A's model on B's text) and
  // the comparison job compares the newest analyses of both.
  void start_compare(const CompareChoice& choice);
  void submit_b();  // B's run, asked for as submit() asks for A's
  void feed_comparison();
  CompareStatus compare_status() const;
  bool compare_ready() const;
  void remember_model(const std::string& model);  // first in the recent list
  void handle_shortcuts();
  void append_next_token();  // N: a decoder writes its most likely next token
  void apply(const PanelActions& actions);
  void draw_views(const PanelContext& context);
  void draw_view(View view, const PanelContext& context);
  void draw_compare_view(const PanelContext& context, const ModelShape& model);
  void draw_frame();
  bool screenshot_ready() const;
  bool animating() const;
  // Waits for something to draw; false when woken with nothing to show (the idle check's end).
  bool wait_for_work();
  ScriptedFrame scripted_frame(int width, int height, double frame_seconds) const;
  bool script_over(int width, int height, double frame_start, bool presented);
  int settle_frames_ = kSettleFrames;
  // What was already drawn, by serial: a raw pointer could be a new snapshot at a freed one's address.
  uint64_t seen_ = 0;  // the newest snapshot already drawn
  // The reports of the jobs beside the window already drawn (the overview's, the Head view's rollout).
  uint64_t seen_jobs_ = 0;
  uint64_t job_updates() const {
    return grid_.job_updates() + head_.job_updates() + layers_.job_updates() + pairs_.job_updates();
  }
  uint64_t seen_b_ = 0;
  uint64_t seen_comparison_ = 0;
  bool was_loaded_ = false;
  uint64_t frames_drawn_ = 0;
  // A frame that can differ from the last only on the text side (a key typed into the editor,
  // nothing else) redraws only that side, where the back buffer keeps the last frame
  // (ExplorerOptions::partial_frames, partial_frames.h).
  bool text_side_only(const ViewState& view_before) const;
  void rasterise(int width, int height, bool text_side_only);
  void draw_data(int width, int height, const PixelRect* scissor);
  // --check-partial-frames: the pixels of the partial frame just drawn that differ from the same frame drawn whole.
  long long check_partial_frame(int width, int height, const std::vector<ImVec4>& whole_clips);
  bool back_buffer_kept_ = false;
  int drawn_width_ = 0, drawn_height_ = 0;
  ImVec4 text_side_{};                   // where this frame's text side is
  int full_frames_due_ = kSettleFrames;  // after input other than keys, as many frames as settle it are drawn whole
  uint64_t frame_good_ = 0, frame_latest_ = 0;  // the snapshots this frame was built with
  // The analysis this frame drew: what the scripts count as shown, not what the worker holds once
  // the frame is presented (a run may end between the two).
  std::shared_ptr<const AnalysisSnapshot> frame_shown_;
  uint64_t drawn_good_ = 0, drawn_latest_ = 0;  // ... and those of the frame before
  int partial_frames_ = 0;
  bool last_frame_whole_ = true;
  LayoutAudit audit_;

  ExplorerOptions options_;
  WindowScript script_;  // screenshots, benchmarks, the idle check (tests and bench/ only)
  Settings settings_;
  std::string settings_path_, status_;
  Window window_;
  Fonts fonts_;
  HeatmapRenderer renderer_;
  std::unique_ptr<AnalysisWorker> worker_;
  int select_tab_ = 2;  // frames during which the tab bar is told which view to show
  bool help_open_ = false;
  bool views_pending_ = false;  // a view drawn this frame is still being made (PanelActions::more_frames)
  std::shared_ptr<const AnalysisSnapshot> held_so_far_;  // ExplorerOptions::screenshot_mid_scan's
  TextPanel text_panel_;
  GridPanel grid_{[] { glfwPostEmptyEvent(); }};
  // A long text's maps in these views are drawn from tiles (the second builder).
  FigurePanel head_{[](const AnalyzedTextView& t, const FigureOptions& o) {
                      return o.query_key ? query_key_figure(t, o) : head_figure(t, o);
                    },
                    [](const AnalyzedTextView& t, const FigureOptions& o) {
                      return o.query_key ? TiledFigure{query_key_figure(t, o), {}} : tiled_head_figure(t, o);
                    }};
  FigurePanel separators_{figure5, tiled_figure5}, stats_{stats_figure}, lines_{lines_figure};
  FigurePanel layers_{
      [](const AnalyzedTextView& t, const FigureOptions& o) { return with_figure13(figure12(t, o), t, o); },
      [](const AnalyzedTextView& t, const FigureOptions& o) {
        TiledFigure f = tiled_figure12(t, o);
        f.figure = with_figure13(std::move(f.figure), t, o);
        return f;
      }};
  PairsPanel pairs_;
  CorpusPanel corpus_;
  std::optional<CompareChoice> compare_choice_;
  std::unique_ptr<AnalysisWorker> worker_b_;
  ComparisonJob comparison_{[] { glfwPostEmptyEvent(); }};
  ComparePanel compare_;
  ExportDialog export_;
  ModelPicker picker_{ATTNSCOPE_DEFAULT_MODEL};
  const AnalysisWorker* announced_ = nullptr;
};

}  // namespace attnscope::ui
