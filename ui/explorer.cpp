// The explorer's main loop and the state it owns. Sections, in order:
//   1. the Explorer class: panels, workers, view state (and pick_model, the model to open)
//   2. requests: submit, the lenses' captures on demand, compare mode's second worker and job
//   3. model switching, panel actions and keyboard shortcuts
//   4. the views: each view's own controls (draw_view) and the tab bar (draw_views)
//   5. the frame (draw_frame) and when to draw one (wait_for_work)
//   6. scripted runs: screenshot, frame and typing benchmarks, idle check, --trace-shown
//   7. the loop (run) and run_explorer
#include "explorer.h"

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <memory>
#include <optional>
#include <vector>

#include "analysis_worker.h"
#include "error.h"
#include "model/model_locator.h"
#include "fonts.h"
#include "gl/heatmap_renderer.h"
#include "layout_audit.h"
#include "comparison_job.h"
#include "panels/compare_panel.h"
#include "panels/corpus_panel.h"
#include "panels/export_dialog.h"
#include "panels/figure_panel.h"
#include "panels/grid_panel.h"
#include "panels/help_window.h"
#include "panels/model_picker.h"
#include "panels/pairs_panel.h"
#include "panels/text_panel.h"
#include "screenshot.h"
#include "settings_store.h"
#include "typing_bench.h"
#include "widgets.h"
#include "window.h"
#include "tokenizer/piece_text.h"
#include "figures/query_key_figure.h"

namespace attnscope::ui {
namespace {

// Frames drawn after an input event: the one that takes it in, and for the mouse one more for
// what it changed (a popup opened, a hover moved). A key's frame draws its own effect; one that
// changes the view asks for a frame more (see run). On a machine without a GPU every frame takes
// CPU from the model.
constexpr int kSettleFrames = 2;
// While a download or a corpus job runs, the window redraws this often to show its progress. An
// analysis redraws nothing while it runs (its worker wakes the window when it is done): frames
// drawn meanwhile would take CPU from the model on a machine without a GPU.
constexpr double kProgressPeriod = 0.25;

class Explorer {
 public:
  Explorer(const ExplorerOptions& o, Settings settings, std::string settings_warning);
  int run();

 private:
  void submit();
  bool needs_lenses() const;
  bool lenses_asked_ = false;  // the last request asked for the lenses' captures
  std::unique_ptr<AnalysisWorker> make_worker(const std::string& model) const {
    // The worker wakes the sleeping main loop when its answer is there.
    return std::make_unique<AnalysisWorker>(model, options_.device, options_.precision, [] { glfwPostEmptyEvent(); });
  }
  void switch_model(const std::string& model);
  // Compare mode: B's worker runs B (another model on A's text, or A's model on B's text) and
  // the comparison job compares the newest analyses of both.
  void start_compare(const CompareChoice& choice);
  void submit_b();
  void feed_comparison();
  CompareStatus compare_status() const;
  bool compare_ready() const;
  void remember_model(const std::string& model);  // first in the recent list
  void handle_shortcuts();
  void apply(const PanelActions& actions);
  void draw_views(const PanelContext& context);
  void draw_view(View view, const PanelContext& context);
  void draw_frame();
  bool screenshot_ready() const;
  bool animating() const;
  bool scripted() const { return !options_.screenshot.empty() || options_.bench_frames > 0 || typing_ || options_.idle_check > 0; }
  // Waits for something to draw; false when woken with nothing to show (the idle check's end).
  bool wait_for_work();
  // --screenshot / --bench-frames / --idle-check: true when the scripted run is over.
  bool scripted_step(int width, int height, double frame_seconds);
  bool typing_step(double frame_seconds);
  bool idle_step();
  void trace_shown();
  const AnalysisSnapshot* traced_ = nullptr;
  int ready_frames_ = 0;
  std::vector<double> frame_ms_;
  int settle_frames_ = kSettleFrames;
  const AnalysisSnapshot* seen_ = nullptr;  // the newest snapshot already drawn
  const AnalysisSnapshot* seen_b_ = nullptr;
  const ComparisonSnapshot* seen_comparison_ = nullptr;
  bool was_loaded_ = false;
  uint64_t frames_drawn_ = 0;
  std::optional<TypingBench> typing_;
  const AnalysisSnapshot* typing_seen_ = nullptr;
  double idle_until_ = 0, idle_cpu_start_ = 0;
  uint64_t idle_frames_start_ = 0;
  LayoutAudit audit_;

  ExplorerOptions options_;
  Settings settings_;
  std::string settings_path_, status_;
  Window window_;
  Fonts fonts_;
  HeatmapRenderer renderer_;
  std::unique_ptr<AnalysisWorker> worker_;
  int select_tab_ = 2;  // frames during which the tab bar is told which view to show
  bool help_open_ = false;
  TextPanel text_panel_;
  GridPanel grid_;
  FigurePanel head_{[](const AnalyzedTextView& t, const FigureOptions& o) { return o.query_key ? query_key_figure(t, o) : head_figure(t, o); }};
  FigurePanel separators_{figure5}, stats_{stats_figure}, lines_{lines_figure};
  FigurePanel layers_{[](const AnalyzedTextView& t, const FigureOptions& o) {
    Figure f = figure12(t, o);
    Figure distances = figure13(t, o);
    for (auto& p : distances.panels) f.panels.push_back(std::move(p));
    f.title = "Fig. 12 and 13: summed similarity and pooled pair distances per layer";
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

// The model to open: the one asked for, else the last used, else the paper's bert-base-uncased
// when it is in the Hugging Face cache, else the small model installed with attnscope, with the
// first-run choice offered over it.
std::string pick_model(const ExplorerOptions& o, const Settings& s, bool& first_run) {
  first_run = false;
  if (!o.model.empty()) return o.model;
  if (!s.model.empty()) return s.model;
  try {
    locate_model("bert-base-uncased");
    return "bert-base-uncased";
  } catch (const Error&) {
    first_run = o.download.empty();  // a download asked for on the command line is the choice
    return ATTNSCOPE_DEFAULT_MODEL;
  }
}

Explorer::Explorer(const ExplorerOptions& o, Settings settings, std::string warning)
    : options_(o),
      settings_(std::move(settings)),
      settings_path_(o.settings_path.empty() ? default_settings_path().string() : o.settings_path),
      status_(std::move(warning)),
      window_(o.width ? o.width : settings_.window_width, o.height ? o.height : settings_.window_height, "attnscope"),
      fonts_(load_fonts(window_.content_scale())),
      text_panel_(o.examples_dir) {
  bool first_run = false;
  settings_.model = pick_model(o, settings_, first_run);
  if (first_run) picker_.offer_first_run();
  else remember_model(settings_.model);
  if (o.view) settings_.view.view = *o.view;
  if (o.matrix) settings_.view.matrix = *o.matrix;
  if (o.layer) settings_.view.layer = *o.layer;
  if (o.head) settings_.view.head = *o.head;
  if (o.presentation) settings_.view.presentation = *o.presentation;
  if (o.max_length) settings_.max_length = o.max_length;
  if (o.bench_frames > 0 || o.bench_typing > 0) glfwSwapInterval(0);  // time the frames, not the display
  if (o.bench_typing > 0) {
    TypingBenchOptions typing{o.bench_typing};
    if (o.typing_interval > 0) typing.key_interval = o.typing_interval;
    typing_.emplace(typing);
  }
  worker_ = make_worker(settings_.model);
  ImGui::GetIO().ConfigInputTextCursorBlink = false;  // a blinking cursor would keep an idle window drawing
  if (scripted()) ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NoMouse;  // no stray tooltips in screenshots
  if (o.text) text_panel_.set_text(*o.text);
  else if (!text_panel_.load_file(o.examples_dir + "/lighthouse.txt")) text_panel_.set_text("The lighthouse keeper wrote a letter. She sent it.");
  if (!o.corpus_result.empty()) corpus_.open(o.corpus_result);
  if (!o.corpus_result_b.empty()) corpus_.open_b(o.corpus_result_b);
  if (!o.download.empty()) picker_.download(o.download);
  submit();
  compare_.show(o.compare_shown);
  if (!o.compare_model.empty()) start_compare({true, o.compare_model, ""});
  if (!o.compare_text.empty()) start_compare({false, "", o.compare_text});
}

// The lenses' captures cost the forward time (a fifth to a third at 128 tokens): asked for only
// while something shown needs them, so that typing stays as fast as the model allows otherwise.
bool Explorer::needs_lenses() const {
  const ViewState& v = settings_.view;
  const bool rollout = v.matrix == MatrixKind::Rollout || v.layers_matrix == MatrixKind::Rollout;
  return v.matrix == MatrixKind::Norm || v.layers_matrix == MatrixKind::Norm || v.query_key || (rollout && v.rollout_of_norm) ||
         settings_.analysis.separators_from == SeparatorInput::Norm || settings_.analysis.pairs_from == PairInput::Norm;
}

void Explorer::submit() {
  lenses_asked_ = needs_lenses();
  worker_->submit({text_panel_.text(), settings_.analysis, settings_.max_length, lenses_asked_});
  if (compare_choice_ && compare_choice_->other_model) submit_b();  // B runs on A's text
}

void Explorer::submit_b() {
  if (worker_b_)
    worker_b_->submit({compare_choice_->other_model ? text_panel_.text() : compare_choice_->text, settings_.analysis, settings_.max_length, lenses_asked_});
}

void Explorer::start_compare(const CompareChoice& choice) {
  compare_choice_ = choice;
  compare_.set_choice(choice);
  const auto notify = [] { glfwPostEmptyEvent(); };
  if (choice.other_model) worker_b_ = make_worker(choice.model);
  else if (const auto loaded = worker_->checkpoint()) worker_b_ = std::make_unique<AnalysisWorker>(loaded, settings_.model, notify);
  else worker_b_ = make_worker(settings_.model);  // A is still loading: B loads its own copy
  submit_b();
}

// The newest good analyses of A and B, compared once each pair (the job skips a pair it has seen).
void Explorer::feed_comparison() {
  if (!worker_b_) return;
  auto a = worker_->latest_good();
  auto b = worker_b_->latest_good();
  if (a && b) comparison_.submit(std::move(a), std::move(b), {compare_choice_->other_model});
}

CompareStatus Explorer::compare_status() const {
  CompareStatus s;
  if (!worker_b_) return s;
  s.active = true;
  s.model = worker_b_->model_status();
  s.busy = worker_b_->busy() || comparison_.busy();
  if (const auto latest = worker_b_->latest(); latest && !latest->error.empty()) s.error = latest->error;
  return s;
}

// Both sides analysed and compared, up to the newest analyses.
bool Explorer::compare_ready() const {
  if (!worker_b_) return true;
  const auto c = comparison_.latest();
  return !worker_b_->busy() && !comparison_.busy() && c && c->a == worker_->latest_good() && c->b == worker_b_->latest_good();
}

void Explorer::remember_model(const std::string& model) {
  settings_.model = model;
  auto& recent = settings_.recent_models;
  std::erase(recent, model);
  recent.insert(recent.begin(), model);
  if (recent.size() > 8) recent.resize(8);
}

void Explorer::switch_model(const std::string& model) {
  remember_model(model);
  worker_ = make_worker(model);  // joins the old one
  submit();
  if (compare_choice_ && !compare_choice_->other_model) start_compare(*compare_choice_);  // B is A's model on another text
}

void Explorer::apply(const PanelActions& a) {
  if (a.state) {
    if (a.state->view != settings_.view.view) select_tab_ = 2;
    settings_.view = *a.state;
  }
  if (a.export_figure) {
    const ViewState& s = settings_.view;
    export_.open(*a.export_figure, std::string("attnscope-") + view_name(s.view) + "-L" + std::to_string(s.layer) + "-H" + std::to_string(s.head));
  }
}

void Explorer::handle_shortcuts() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl || io.KeyAlt) return;
  const ModelStatus m = worker_->model_status();
  ViewState s = settings_.view;
  const auto pressed = [](int key) { return ImGui::IsKeyPressed(key); };  // GLFW key codes in ImGui 1.86
  if (pressed(GLFW_KEY_RIGHT)) s = stepped(s, Step::NextHead, m.layers, m.heads);
  if (pressed(GLFW_KEY_LEFT)) s = stepped(s, Step::PreviousHead, m.layers, m.heads);
  if (pressed(GLFW_KEY_DOWN)) s = stepped(s, Step::NextLayer, m.layers, m.heads);
  if (pressed(GLFW_KEY_UP)) s = stepped(s, Step::PreviousLayer, m.layers, m.heads);
  if (pressed(GLFW_KEY_S)) s.layer_sum = !s.layer_sum;
  if (pressed(GLFW_KEY_M)) s.matrix = next_matrix(s.matrix);
  if (pressed(GLFW_KEY_P)) s.presentation = !s.presentation;
  if (pressed(GLFW_KEY_F1) || pressed(GLFW_KEY_H)) help_open_ = !help_open_;
  for (int v = 0; v < kViewCount; ++v)
    if (pressed(GLFW_KEY_1 + v)) s.view = static_cast<View>(v);
  PanelActions a;
  a.state = s;
  apply(a);
}

void Explorer::draw_view(View view, const PanelContext& c) {
  // The view's own controls flow onto the next line when the panel is narrow.
  const auto slider = [](const char* label, int* value, int top) {
    const float w = ImGui::GetFontSize() * 7;
    same_line_if_fits(w + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
    ImGui::SetNextItemWidth(w);
    ImGui::SliderInt(label, value, 0, top);
  };
  const auto check = [](const char* label, bool* value) {
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
    ImGui::Checkbox(label, value);
  };
  const auto focus_controls = [this, slider, check](ViewState& s) {
    const ModelStatus m = worker_->model_status();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    ImGui::SliderInt("layer", &s.layer, 0, std::max(0, m.layers - 1));
    slider("head", &s.head, std::max(0, m.heads - 1));
    check("layer sum", &s.layer_sum);
  };
  const auto matrix_controls = [&focus_controls, check](ViewState& s) {
    focus_controls(s);
    int matrix = static_cast<int>(s.matrix);
    for (int k = 0; k < kMatrixKinds; ++k) {
      const char* name = matrix_name(static_cast<MatrixKind>(k));
      same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(name).x);
      ImGui::RadioButton(name, &matrix, k);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", matrix_help(static_cast<MatrixKind>(k)));
    }
    s.matrix = static_cast<MatrixKind>(matrix);
    if (s.matrix == MatrixKind::Attention) check("zero diagonal", &s.zero_diagonal);
    if (s.matrix == MatrixKind::Rollout) check("through the norm-based maps", &s.rollout_of_norm);
  };
  // The Head view's own: the matrix, or the queries and keys of one token (bertviz's neuron view).
  const auto head_controls = [this, &matrix_controls, check](ViewState& s) {
    matrix_controls(s);
    check("queries and keys", &s.query_key);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The focused head's query of one token, every token's key, their products (a row sums to the score "
                        "times sqrt(d)) and the attention they make: bertviz's neuron view (Vig 2019).");
    if (!s.query_key) return;
    const auto latest = worker_->latest_good();
    const int n = latest ? static_cast<int>(latest->encoding.size()) : 1;
    same_line_if_fits(ImGui::GetFontSize() * 12);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    ImGui::SliderInt("query token", &s.query, 0, std::max(0, n - 1));
    s.query = std::clamp(s.query, 0, std::max(0, n - 1));
  };
  const auto layer_choice = [this, check](ViewState& s) {
    int matrix = static_cast<int>(s.layers_matrix);
    ImGui::TextUnformatted("layer maps");
    for (int k = 0; k < kMatrixKinds; ++k) {
      const char* name = matrix_name(static_cast<MatrixKind>(k));
      same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(name).x);
      ImGui::RadioButton((std::string(name) + "##layers").c_str(), &matrix, k);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", matrix_help(static_cast<MatrixKind>(k)));
    }
    s.layers_matrix = static_cast<MatrixKind>(matrix);
    const int layers = worker_->model_status().layers;
    ImGui::TextUnformatted("layers shown");
    for (int l = 0; l < layers; ++l) {
      bool on = s.layers_shown.empty() || std::find(s.layers_shown.begin(), s.layers_shown.end(), l) != s.layers_shown.end();
      const bool was = on;
      check(std::to_string(l).c_str(), &on);
      if (on == was) continue;
      if (s.layers_shown.empty())
        for (int k = 0; k < layers; ++k) s.layers_shown.push_back(k);
      if (on) s.layers_shown.push_back(l);
      else std::erase(s.layers_shown, l);
      std::sort(s.layers_shown.begin(), s.layers_shown.end());
      s.layers_shown.erase(std::unique(s.layers_shown.begin(), s.layers_shown.end()), s.layers_shown.end());
      if (s.layers_shown.empty()) s.layers_shown.push_back(l);  // at least one layer stays
    }
  };
  const auto lines_controls = [this, &focus_controls, check](ViewState& s) {
    focus_controls(s);
    if (s.layer_sum) return;
    ImGui::TextUnformatted("with heads");
    for (int h = 0; h < worker_->model_status().heads; ++h) {
      if (h == s.head) continue;  // the focused head is always drawn
      bool on = std::find(s.heads_shown.begin(), s.heads_shown.end(), h) != s.heads_shown.end();
      check(std::to_string(h).c_str(), &on);
      if (on) {
        if (std::find(s.heads_shown.begin(), s.heads_shown.end(), h) == s.heads_shown.end()) s.heads_shown.push_back(h);
      } else {
        std::erase(s.heads_shown, h);
      }
    }
  };
  // Which tokens took the most column attention, and why the mask may show one colour only.
  const auto separator_controls = [this, &focus_controls, &c](ViewState& s) {
    focus_controls(s);
    bool text_only = settings_.analysis.separators_text_only;
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::CalcTextSize("separators among text tokens only").x + 8);
    if (ImGui::Checkbox("separators among text tokens only", &text_only)) {
      settings_.analysis.separators_text_only = text_only;
      submit();
    }
    int from = static_cast<int>(settings_.analysis.separators_from);
    same_line_if_fits(ImGui::GetFontSize() * 16);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::Combo("separators from", &from, "attention\0norm\0rollout\0")) {
      settings_.analysis.separators_from = static_cast<SeparatorInput>(from);
      submit();
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The column attention a_j summed from the attention maps (METHOD.md), the norm-based maps (Kobayashi "
                        "et al. 2020) or the layer's rollout (Abnar and Zuidema 2020).");
    if (!c.snapshot) return;
    const TextAnalysis& a = c.snapshot->analysis;
    if (s.layer >= a.num_layers || s.head >= a.num_heads) return;
    const Separators& seps = a.head(s.layer, std::max(0, s.head)).separators;
    const Encoding& e = c.snapshot->encoding;
    std::vector<int> order(seps.column_share.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int x, int y) { return seps.column_share[x] > seps.column_share[y]; });
    std::string top = "Most column attention (a_hat): ";
    for (size_t k = 0; k < order.size() && k < 6; ++k) {
      char item[96];
      std::snprintf(item, sizeof item, "%s%s %d: %.2f", k ? ", " : "", readable_piece(e.tokens[order[k]].text).c_str(), order[k], seps.column_share[order[k]]);
      top += item;
    }
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(top.c_str());
    const bool only_special = !seps.positions.empty() && std::all_of(seps.positions.begin(), seps.positions.end(), [&](int j) { return e.tokens[j].special; });
    if (only_special && !settings_.analysis.separators_text_only)
      ImGui::TextDisabled("Only special tokens reach tau_sep = %.2f here, so the mask and the blocks have one colour: this head "
                          "puts its attention on %s. Tick \"separators among text tokens only\" to see the text's own columns.",
                          a.settings.tau_sep, readable_piece(e.tokens[seps.positions.front()].text).c_str());
    ImGui::PopTextWrapPos();
  };
  // Which matrix a head's pairs, and so its statistics, come from (S by default, as METHOD.md).
  const auto pair_source = [this] {
    int from = static_cast<int>(settings_.analysis.pairs_from);
    same_line_if_fits(ImGui::GetFontSize() * 13);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::Combo("pairs from", &from, "similarity\0cosine\0attention\0norm\0rollout\0")) {
      settings_.analysis.pairs_from = static_cast<PairInput>(from);
      submit();
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The matrix whose high elements (>= tau times its largest) are the pairs: S (METHOD.md), cosine, attention, "
                        "the norm-based map (Kobayashi et al. 2020) or the layer's rollout (Abnar and Zuidema 2020); attention, norm "
                        "and rollout averaged with their transpose first.");
  };
  const auto stats_controls = [&focus_controls, &pair_source](ViewState& s) {
    focus_controls(s);
    pair_source();
  };
  switch (view) {
    case View::Grid: apply(grid_.draw(c)); break;
    case View::Head: apply(head_.draw(c, head_controls)); break;
    case View::Separators: apply(separators_.draw(c, separator_controls)); break;
    case View::Pairs:
      pair_source();
      apply(pairs_.draw(c));
      break;
    case View::Stats: apply(stats_.draw(c, stats_controls)); break;
    case View::Layers: apply(layers_.draw(c, layer_choice)); break;
    case View::Lines: apply(lines_.draw(c, lines_controls)); break;
    case View::Corpus: apply(corpus_.draw(c, worker_->checkpoint(), focus_controls)); break;
    case View::Compare: {
      const auto comparison = comparison_.latest();
      const CompareActions a = compare_.draw(c, comparison.get(), compare_status(), settings_.model, settings_.recent_models, matrix_controls);
      apply(a.panel);
      if (a.start) start_compare(*a.start);
      if (a.text_b && compare_choice_ && !compare_choice_->other_model) {  // live, as A's text is
        compare_choice_->text = *a.text_b;
        submit_b();
      }
      break;
    }
  }
}

void Explorer::draw_views(const PanelContext& c) {
  if (!ImGui::BeginTabBar("views")) return;
  for (int v = 0; v < kViewCount; ++v) {
    const View view = static_cast<View>(v);
    const ImGuiTabItemFlags flags = select_tab_ > 0 && settings_.view.view == view ? ImGuiTabItemFlags_SetSelected : 0;
    if (!ImGui::BeginTabItem(view_title(view), nullptr, flags)) continue;
    if (select_tab_ == 0 && settings_.view.view != view) settings_.view.view = view;  // the user clicked this tab
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 35);
      ImGui::TextUnformatted(view_help(view));
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", view_summary(view));
    ImGui::PopTextWrapPos();
    draw_view(view, c);
    ImGui::EndTabItem();
  }
  if (select_tab_ > 0) --select_tab_;
  audit_.check_tab_bar();
  ImGui::EndTabBar();
}

void Explorer::draw_frame() {
  const bool big = settings_.view.presentation;
  ImGui::PushFont(big ? fonts_.large : fonts_.normal);
  handle_shortcuts();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::Begin("attnscope", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBringToFrontOnFocus);
  if (const ModelStatus m = worker_->model_status(); m.loaded) {
    settings_.view = clamped(settings_.view, m.layers, m.heads);
    if (announced_ != worker_.get()) {  // once per model: what is in use, for the terminal too
      std::fprintf(stderr, "attnscope: opened %s (%d layers x %d heads on %s)\n", m.name.c_str(), m.layers, m.heads, m.device.c_str());
      announced_ = worker_.get();
    }
  }
  feed_comparison();
  if (needs_lenses() && !lenses_asked_) {  // a lens was chosen: the text again, with its captures
    submit();
    if (compare_choice_ && !compare_choice_->other_model) submit_b();
  }
  const auto shown = worker_->latest_good();
  const auto latest = worker_->latest();
  ImGui::BeginChild("text side", ImVec2(vp->WorkSize.x * (big ? 0.24f : 0.3f), 0), true);
  Settings before = settings_;
  const TextPanelResult r = text_panel_.draw(settings_, worker_->model_status(), shown.get(), latest.get(), worker_->busy());
  if (r.text_edited || r.settings_changed) submit();  // at once: the newest request wins, a stale run stops
  if (r.settings_changed && compare_choice_ && !compare_choice_->other_model) submit_b();  // B's text is its own
  if (!status_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.7f, 0.3f, 1));
    ImGui::TextWrapped("%s", status_.c_str());
    ImGui::PopStyleColor();
  }
  if (ImGui::Button(big ? "Leave presentation (P)" : "Presentation mode (P)")) settings_.view.presentation = !big;
  if (flowing_button("Help (F1)")) help_open_ = true;
  if (flowing_button("Model...")) picker_.open();
  if (const auto chosen = picker_.draw(settings_.recent_models)) switch_model(*chosen);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("views side", ImVec2(0, 0), false);
  const PanelContext context{shown.get(), settings_.view, renderer_, (big ? 20.0f : 13.0f) * window_.content_scale()};
  draw_views(context);
  ImGui::EndChild();
  export_.draw();
  ImGui::End();
  draw_help_window(help_open_);
  ImGui::PopFont();
}

bool Explorer::screenshot_ready() const {
  if (picker_.downloading() || worker_->busy() || !worker_->latest()) return false;
  if (settings_.view.view == View::Corpus && !options_.corpus_result.empty()) return corpus_.has_result() && !corpus_.busy();
  if (settings_.view.view == View::Compare) return compare_ready();
  return true;
}

bool Explorer::animating() const { return picker_.downloading() || corpus_.busy(); }

bool Explorer::wait_for_work() {
  const bool idle_checking = idle_until_ > 0;
  // Screenshots and the frame benchmark draw as fast as they can; the typing benchmark and the
  // idle check wait as a user's window does, until their next scripted moment.
  const bool polling = !options_.screenshot.empty() || options_.bench_frames > 0 || (options_.idle_check > 0 && !idle_checking);
  const double scripted_wake = typing_ ? typing_->next_moment() : idle_checking ? idle_until_ : 0;
  if (polling || settle_frames_ > 0) glfwPollEvents();
  else if (animating()) glfwWaitEventsTimeout(kProgressPeriod);
  else if (scripted_wake > 0) glfwWaitEventsTimeout(std::max(0.0, scripted_wake - glfwGetTime()));
  else glfwWaitEvents();
  const Window::Events events = window_.take_events();
  if (events.others > 0) settle_frames_ = kSettleFrames;
  else if (events.keys > 0) settle_frames_ = std::max(settle_frames_, 1);
  const ModelStatus m = worker_->model_status();
  if (worker_->latest().get() != seen_ || m.loaded != was_loaded_) settle_frames_ = std::max(settle_frames_, 1);
  if (worker_b_ && (worker_b_->latest().get() != seen_b_ || comparison_.latest().get() != seen_comparison_))
    settle_frames_ = std::max(settle_frames_, 1);
  return settle_frames_ > 0 || animating() || polling || (typing_ && glfwGetTime() >= typing_->next_moment());
}

// --trace-shown: when a presented frame first shows the analysis of the editor's current text,
// one line with the wall-clock time, so a script typing from outside (bench/run_typing_x11.sh)
// measures the latency with the window's own clock on one side only.
void Explorer::trace_shown() {
  if (!options_.trace_shown) return;
  const auto shown = worker_->latest_good();
  if (!shown || shown.get() == traced_ || shown->text != text_panel_.text()) return;
  traced_ = shown.get();
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  std::fprintf(stderr, "attnscope: shown %.6f bytes %zu\n", std::chrono::duration<double>(now).count(), shown->text.size());
}

bool Explorer::typing_step(double frame_seconds) {
  const auto shown = worker_->latest_good();
  const bool current = shown && shown->text == text_panel_.text() && !worker_->busy();
  if (shown && shown.get() != typing_seen_ && current) typing_->analysis_shown(shown->forward_seconds, shown->analysis_seconds);
  if (current) typing_seen_ = shown.get();
  typing_->frame_presented(glfwGetTime(), frame_seconds, current);
  if (!typing_->done()) return false;
  std::printf("%s\n", typing_->summary(shown ? shown->encoding.size() : 0, worker_->abandoned(), current).dump().c_str());
  return true;
}

bool Explorer::idle_step() {
  const auto cpu_seconds = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
  };
  if (idle_until_ == 0) {  // the analysis is shown: from now on nothing changes
    idle_until_ = glfwGetTime() + options_.idle_check;
    idle_frames_start_ = frames_drawn_;
    idle_cpu_start_ = cpu_seconds();
    settle_frames_ = 0;
    return false;
  }
  if (glfwGetTime() < idle_until_) return false;
  const double cpu = cpu_seconds() - idle_cpu_start_;
  std::printf("{\"idle_seconds\": %.3f, \"frames_drawn\": %llu, \"cpu_seconds\": %.4f, \"cpu_share_of_one_core\": %.5f}\n", options_.idle_check,
              static_cast<unsigned long long>(frames_drawn_ - idle_frames_start_), cpu, cpu / options_.idle_check);
  return true;
}

bool Explorer::scripted_step(int w, int h, double frame_seconds) {
  if (!scripted()) return false;
  if (const ModelStatus m = worker_->model_status(); !m.error.empty()) throw Error(m.error);
  if (typing_ && worker_->model_status().loaded) return typing_step(frame_seconds);
  // A few frames after the analysis is in: textures are made and the layout has settled.
  ready_frames_ = screenshot_ready() ? ready_frames_ + 1 : 0;
  if (ready_frames_ < 4) {
    if (glfwGetTime() > options_.timeout) throw Error("the analysis did not finish within the timeout (--timeout)");
    return false;
  }
  if (options_.idle_check > 0) return idle_step();
  if (options_.bench_frames > 0) {
    if (ready_frames_ > 4) frame_ms_.push_back(frame_seconds * 1000);
    if (static_cast<int>(frame_ms_.size()) < options_.bench_frames) return false;
    std::sort(frame_ms_.begin(), frame_ms_.end());
    const auto at = [this](double q) { return frame_ms_[static_cast<size_t>(q * (frame_ms_.size() - 1))]; };
    std::printf("{\"view\": \"%s\", \"tokens\": %zu, \"frames\": %zu, \"median_ms\": %.3f, \"p95_ms\": %.3f, \"max_ms\": %.3f}\n",
                view_name(settings_.view.view), worker_->latest()->encoding.size(), frame_ms_.size(), at(0.5), at(0.95), frame_ms_.back());
  }
  if (!options_.screenshot.empty()) {
    save_screenshot(options_.screenshot, w, h);
    for (const std::string& finding : audit_.findings()) std::fprintf(stderr, "attnscope: layout: %s\n", finding.c_str());
  }
  if (const auto latest = worker_->latest(); latest && !latest->error.empty()) std::fprintf(stderr, "attnscope: %s\n", latest->error.c_str());
  return true;
}

int Explorer::run() {
  while (!window_.should_close()) {
    if (!wait_for_work()) {
      if (idle_until_ > 0 && idle_step()) return 0;
      continue;
    }
    const double frame_start = glfwGetTime();
    for (const std::string& path : window_.take_dropped_files())
      if (text_panel_.load_file(path)) submit();
    if (typing_ && worker_->model_status().loaded) {
      const std::string keys = typing_->keys_due(glfwGetTime());
      if (!keys.empty()) {
        if (!text_panel_.editor().focused()) {
          text_panel_.editor().focus();
          text_panel_.editor().buffer().move_to_start(false);  // type at the start: every edit changes the tokens shown
        }
        text_panel_.editor().type(keys);
      }
    }
    seen_ = worker_->latest().get();
    if (worker_b_) seen_b_ = worker_b_->latest().get(), seen_comparison_ = comparison_.latest().get();
    was_loaded_ = worker_->model_status().loaded;
    audit_.clear();
    const ViewState view_before = settings_.view;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    draw_frame();
    ImGui::Render();
    audit_.check_windows();
    int w = 0, h = 0;
    window_.framebuffer_size(w, h);
    glViewport(0, 0, w, h);
    glClearColor(0.1f, 0.1f, 0.11f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (options_.bench_frames > 0 || typing_) glFinish();  // count the GL work of the frame too
    ++frames_drawn_;
    settle_frames_ = std::max(0, settle_frames_ - 1);
    if (!(settings_.view == view_before) || select_tab_ > 0) settle_frames_ = std::max(settle_frames_, 1);  // show what this frame changed
    if (!typing_ && scripted_step(w, h, glfwGetTime() - frame_start)) return 0;
    glfwSwapBuffers(window_.get());
    trace_shown();
    if (typing_ && scripted_step(w, h, glfwGetTime() - frame_start)) return 0;  // latency: up to the frame's presentation
  }
  window_.size(settings_.window_width, settings_.window_height);
  try {
    save_settings(settings_path_, settings_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnscope: settings not saved: %s\n", e.what());
  }
  return 0;
}

}  // namespace

int run_explorer(const ExplorerOptions& options) {
  LoadedSettings loaded = load_settings(options.settings_path.empty() ? default_settings_path() : std::filesystem::path(options.settings_path));
  if (!loaded.warning.empty()) std::fprintf(stderr, "attnscope: %s\n", loaded.warning.c_str());
  Explorer explorer(options, std::move(loaded.settings), loaded.warning);
  return explorer.run();
}

}  // namespace attnscope::ui
