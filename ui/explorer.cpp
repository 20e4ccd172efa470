// The explorer's main loop and the state it owns (the class: explorer_app.h). Sections, in order:
//   1. pick_model, the model to open, and the Explorer's construction
//   2. requests: submit, the lenses' captures on demand, compare mode's second worker and job
//   3. model switching, panel actions and keyboard shortcuts
//   4. the frame (draw_frame) and when to draw one (wait_for_work)
//   5. the loop (run) and run_explorer
// The views are drawn in explorer_views.cpp; the scripted runs are a WindowScript (window_script.h).
#include "explorer_app.h"

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
#include "base/error.h"
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

// The main window's background, drawn by clearing the frame instead of as a blended quad over
// the whole window: without a GPU that quad cost a third of a frame (grid view at 1280 x 800:
// 11.9 -> 8.4 ms). The colour is the style's, composited over the clear colour as it was drawn.
ImVec4 window_background() {
  const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  const ImVec4 under(0.1f, 0.1f, 0.11f, 1.0f);
  const auto over = [&](float top, float bottom) { return top * bg.w + bottom * (1 - bg.w); };
  return {over(bg.x, under.x), over(bg.y, under.y), over(bg.z, under.z), 1.0f};
}

}  // namespace

Explorer::Explorer(const ExplorerOptions& o, Settings settings, std::string warning)
    : options_(o),
      script_(o),
      settings_(std::move(settings)),
      settings_path_(o.settings_path.empty() ? default_settings_path().string() : o.settings_path),
      status_(std::move(warning)),
      window_(o.width ? o.width : settings_.window_width, o.height ? o.height : settings_.window_height, "attnscope"),
      fonts_(load_fonts(window_.content_scale())),
      text_panel_(o.examples_dir) {
  bool first_run = false;
  settings_.model = pick_model(o, settings_, first_run);
  if (first_run && o.result.empty())  // a result file is shown without a model: no model to offer yet
    picker_.offer_first_run();
  else
    remember_model(settings_.model);
  if (o.view) settings_.view.view = *o.view;
  if (o.matrix) settings_.view.matrix = *o.matrix;
  if (o.layer) settings_.view.layer = *o.layer;
  if (o.head) settings_.view.head = *o.head;
  if (o.presentation) settings_.view.presentation = *o.presentation;
  if (o.head_roles) settings_.view.head_roles = *o.head_roles;
  if (o.max_length) settings_.max_length = o.max_length;
  for (FigurePanel* panel : {&head_, &separators_, &stats_, &lines_, &layers_}) panel->zoom = o.zoom;
  pairs_.set_zoom(o.zoom);
  if (o.pair_table_rows > 0) pairs_.set_listed_pairs(o.pair_table_rows);
  head_.tiles = o.long_maps;
  head_.make_rollouts_beside(head_figure_rollout_layers, [] { glfwPostEmptyEvent(); });
  layers_.make_rollouts_beside(figure12_rollout_layers, [] { glfwPostEmptyEvent(); });
  for (FigurePanel* panel : {&head_, &separators_, &layers_}) panel->make_maps_beside([] { glfwPostEmptyEvent(); });
  pairs_.make_long_text_parts_beside([] { glfwPostEmptyEvent(); });
  if (o.bench_frames > 0 || o.bench_typing > 0) glfwSwapInterval(0);  // time the frames, not the display
  if (o.partial_frames) back_buffer_kept_ = back_buffer_kept_after_swap(window_.get(), window_background());
  // A result file is read by its own worker; its text and settings are taken once it is read (take_result).
  worker_ = o.result.empty() ? make_worker(settings_.model)
                             : std::make_unique<AnalysisWorker>(AnalysisWorker::OpenResult{o.result, o.pair_mask_bytes},
                                                                [] { glfwPostEmptyEvent(); });
  ImGui::GetIO().ConfigInputTextCursorBlink = false;  // a blinking cursor would keep an idle window drawing
  if (script_.active()) ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NoMouse;  // no stray tooltips in screenshots
  if (o.text)
    text_panel_.set_text(*o.text);
  else if (o.result.empty() && !text_panel_.load_file(o.examples_dir + "/lighthouse.txt"))
    text_panel_.set_text("The lighthouse keeper wrote a letter. She sent it.");
  if (!o.corpus_result.empty()) corpus_.open(o.corpus_result);
  if (!o.corpus_result_b.empty()) corpus_.open_b(o.corpus_result_b);
  if (!o.download.empty()) picker_.download(o.download);
  if (o.result.empty()) submit();
  compare_.show(o.compare_shown);
  if (!o.compare_model.empty()) start_compare({true, o.compare_model, ""});
  if (!o.compare_text.empty()) start_compare({false, "", o.compare_text});
}

// The lenses' captures cost the forward time (a fifth to a third at 128 tokens): asked for only
// while something shown needs them, so that typing stays as fast as the model allows otherwise.
bool Explorer::needs_lenses() const {
  const ViewState& v = settings_.view;
  const bool rollout = v.matrix == MatrixKind::Rollout || v.layers_matrix == MatrixKind::Rollout;
  return needs_lens_captures(settings_.analysis,
                             {.norm = v.matrix == MatrixKind::Norm || v.layers_matrix == MatrixKind::Norm,
                              .rollout_of_norm = rollout && v.rollout_of_norm,
                              .query_key = v.query_key});
}

// The roles are worked out only while the overview shows the role grid.
bool Explorer::needs_roles() const { return settings_.view.view == View::Grid && settings_.view.head_roles; }

// A result file's text goes to the editor and its settings to the analysis, so that what is shown
// is the file's analysis; an edit or another model then runs as usual (Model... opens one), on as
// many tokens as the file's run.
void Explorer::take_result(const ResultShown& result) {
  text_panel_.set_text(result.text);
  text_panel_.set_message("shown from " + options_.result + "; an edit needs a model (Model...)");
  settings_.analysis = result.settings;
  settings_.max_length = result.max_length;  // a model chosen next runs the text as the file's run did
  submit();
}

void Explorer::submit() {
  worker_->supersede();
  run_asked_ = true;
  if (compare_choice_ && compare_choice_->other_model) submit_b();  // B runs on A's text
}

void Explorer::submit_b() {
  if (worker_b_) worker_b_->supersede();
  run_b_asked_ = true;
}

void Explorer::send_asked_runs() {
  if (run_asked_) {
    lenses_asked_ = needs_lenses();
    AnalysisRequest request{text_panel_.text(), settings_.analysis, settings_.max_length, lenses_asked_, std::nullopt};
    if (settings_.view.view == View::Grid) request.grid = figure_options(settings_.view);
    request.long_texts = options_.long_texts;
    request.pair_mask_bytes = options_.pair_mask_bytes;
    roles_asked_ = request.head_roles = needs_roles();
    const bool stale_run = worker_->busy() && worker_->model_status().loaded;  // busy loading: no run to stop
    const uint64_t serial = worker_->submit(std::move(request));
    // A stale run stops at its next check, in about a millisecond of work; beside a frame being
    // rasterised (without a GPU, both cores) it took 4 ms and more, while the new run waited. So
    // the frame waits for it, at most 10 ms (BERT-base size, 128 tokens: latency 1 to 3 ms less,
    // its 95th percentile 7 ms less).
    if (stale_run) worker_->wait_for_start(serial, std::chrono::milliseconds(10));
  }
  if (run_b_asked_ && worker_b_) {
    AnalysisRequest request{compare_choice_->other_model ? text_panel_.text() : compare_choice_->text,
                            settings_.analysis, settings_.max_length, lenses_asked_, std::nullopt};
    request.long_texts = options_.long_texts;  // B's long text keeps no maps either
    request.pair_mask_bytes = options_.pair_mask_bytes;
    worker_b_->submit(std::move(request));
  }
  run_asked_ = run_b_asked_ = false;
}

void Explorer::start_compare(const CompareChoice& choice) {
  compare_choice_ = choice;
  compare_.set_choice(choice);
  const auto notify = [] { glfwPostEmptyEvent(); };
  if (choice.other_model)
    worker_b_ = make_worker(choice.model);
  else if (const auto loaded = worker_->checkpoint())
    worker_b_ = std::make_unique<AnalysisWorker>(loaded, settings_.model, notify);
  else
    worker_b_ = make_worker(settings_.model);  // A is still loading: B loads its own copy
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
  s.comparing = comparison_.fraction();
  if (const auto latest = worker_b_->latest(); latest && !latest->error.empty()) s.error = latest->error;
  return s;
}

// Both sides analysed and compared, up to the newest analyses.
bool Explorer::compare_ready() const {
  if (!worker_b_) return true;
  const auto c = comparison_.latest();
  return !worker_b_->busy() && !comparison_.busy() && c && c->a == worker_->latest_good() &&
         c->b == worker_b_->latest_good();
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
  if (compare_choice_ && !compare_choice_->other_model)
    start_compare(*compare_choice_);  // B is A's model on another text
}

void Explorer::apply(const PanelActions& a) {
  if (a.more_frames) {
    settle_frames_ = std::max(settle_frames_, 2);  // this frame's countdown leaves one more
    views_pending_ = true;
  }
  if (a.state) {
    if (a.state->view != settings_.view.view) select_tab_ = 2;
    settings_.view = *a.state;
  }
  if (a.export_figure) {
    const ViewState& s = settings_.view;
    export_.open(*a.export_figure, std::string("attnscope-") + view_name(s.view) + "-L" + std::to_string(s.layer) +
                                       "-H" + std::to_string(s.head));
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
  if (pressed(GLFW_KEY_N)) append_next_token();
  for (int v = 0; v < kViewCount; ++v)
    if (pressed(GLFW_KEY_1 + v)) s.view = static_cast<View>(v);
  PanelActions a;
  a.state = s;
  apply(a);
}

// N: the decoder's most likely next token after the shown text, appended, and the text analysed
// again (nothing when the shown analysis is not of the editor's text, or the model is an encoder).
void Explorer::append_next_token() {
  const auto shown = worker_->latest_good();
  if (!shown || shown->next.empty() || shown->text != text_panel_.text() || shown->next.front().written.empty()) return;
  text_panel_.append(shown->next.front().written);
  submit();
}

void Explorer::take_loaded_model() {
  const ModelStatus m = worker_->model_status();
  if (!m.loaded) return;
  settings_.view = clamped(settings_.view, m.layers, m.heads);
  if (announced_ == worker_.get()) return;
  // Once per model: what is in use, for the terminal too.
  if (m.result)
    std::fprintf(stderr, "attnscope: opened the result file %s (%d layers x %d heads, without its model)\n",
                 m.name.c_str(), m.layers, m.heads);
  else
    std::fprintf(stderr, "attnscope: opened %s (%d layers x %d heads on %s)\n", m.name.c_str(), m.layers, m.heads,
                 m.device.c_str());
  announced_ = worker_.get();
  if (m.result) take_result(*m.result);
}

void Explorer::draw_frame() {
  views_pending_ = false;
  const bool big = settings_.view.presentation;
  ImGui::PushFont(big ? fonts_.large : fonts_.normal);
  handle_shortcuts();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::Begin("attnscope", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoBackground);
  take_loaded_model();
  feed_comparison();
  if (needs_roles() && !roles_asked_ && !run_asked_)
    submit();                              // the role grid was opened: the text again, with its roles
  if (needs_lenses() && !lenses_asked_) {  // a lens was chosen: the text again, with its captures
    submit();
    if (compare_choice_ && !compare_choice_->other_model) submit_b();
  }
  const auto shown = worker_->latest_good();
  const auto latest = worker_->latest();
  const RunProgress progress = worker_->progress();
  frame_good_ = serial_of(shown), frame_latest_ = serial_of(latest);
  frame_shown_ = shown;
  ImGui::BeginChild("text side", ImVec2(vp->WorkSize.x * (big ? 0.24f : 0.3f), 0), true);
  text_side_ =
      ImVec4(ImGui::GetWindowPos().x, ImGui::GetWindowPos().y, ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
             ImGui::GetWindowPos().y + ImGui::GetWindowSize().y);
  Settings before = settings_;
  const TextPanelResult r =
      text_panel_.draw(settings_, worker_->model_status(), shown.get(), latest.get(), worker_->busy(), progress);
  if (r.text_edited || r.settings_changed) submit();  // the newest request wins, a stale run stops
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
  const PanelContext context{shown.get(),
                             settings_.view,
                             renderer_,
                             (big ? 20.0f : 13.0f) * window_.content_scale(),
                             progress.serial > frame_good_ ? &progress : nullptr,
                             shown};
  draw_views(context);
  ImGui::EndChild();
  export_.draw();
  ImGui::End();
  draw_help_window(help_open_);
  ImGui::PopFont();
}

bool Explorer::screenshot_ready() const {
  if (options_.screenshot_mid_scan) return held_so_far_ && !stats_.waiting();
  if (picker_.downloading() || run_asked_ || run_b_asked_ || worker_->busy() || !worker_->latest() || views_pending_)
    return false;
  if (settings_.view.view == View::Grid && grid_.colouring()) return false;
  if ((settings_.view.view == View::Head && head_.waiting()) ||
      (settings_.view.view == View::Separators && separators_.waiting()) ||
      (settings_.view.view == View::Layers && layers_.waiting()) ||
      (settings_.view.view == View::Pairs && pairs_.waiting()))
    return false;
  if (settings_.view.view == View::Corpus && !options_.corpus_result.empty())
    return corpus_.has_result() && !corpus_.busy();
  if (settings_.view.view == View::Compare) return compare_ready();
  return true;
}

bool Explorer::animating() const { return picker_.downloading() || corpus_.busy(); }

bool Explorer::hold_for_quick_run() {
  if (!run_asked_ || hold_until_ > 0) return false;
  const auto last = worker_->latest_good();
  if (!last || last->seconds > options_.quick_run) return false;
  send_asked_runs();
  hold_until_ = glfwGetTime() + options_.quick_run;
  return true;
}

bool Explorer::wait_for_work() {
  // The held frame is drawn when the run answers, input that draws comes (not a key's release; a
  // scripted key), or the hold ends.
  if (hold_until_ > 0) {
    const double key = script_.next_key() > 0 ? script_.next_key() : hold_until_;
    const double until = std::min(hold_until_, key);
    while (glfwGetTime() < until && serial_of(worker_->latest()) == seen_ && !window_.has_events())
      glfwWaitEventsTimeout(until - glfwGetTime());
    hold_until_ = 0;
    settle_frames_ = std::max(settle_frames_, 1);
  }
  // Screenshots and the frame benchmark draw as fast as they can; the typing benchmark and the
  // idle check wait as a user's window does, until their next scripted moment.
  const bool polling = script_.polling();
  const double scripted_wake = script_.wake_at();
  if (polling || settle_frames_ > 0)
    glfwPollEvents();
  else if (animating())
    glfwWaitEventsTimeout(kProgressPeriod);
  else if (scripted_wake > 0)
    glfwWaitEventsTimeout(std::max(0.0, scripted_wake - glfwGetTime()));
  else
    glfwWaitEvents();
  const Window::Events events = window_.take_events();
  if (events.others > 0)
    settle_frames_ = full_frames_due_ = kSettleFrames;
  else if (events.keys > 0)
    settle_frames_ = std::max(settle_frames_, 1);
  const ModelStatus m = worker_->model_status();
  if (serial_of(worker_->latest()) != seen_ || m.loaded != was_loaded_) settle_frames_ = std::max(settle_frames_, 1);
  if (job_updates() != seen_jobs_) settle_frames_ = std::max(settle_frames_, 1);
  if (worker_b_ && (serial_of(worker_b_->latest()) != seen_b_ || serial_of(comparison_.latest()) != seen_comparison_))
    settle_frames_ = std::max(settle_frames_, 1);
  return settle_frames_ > 0 || animating() || polling || script_.key_due(glfwGetTime());
}

bool Explorer::text_side_only(const ViewState& view_before) const {
  // Typed into the editor (a shortcut may change anything), the same snapshots shown, the same
  // view, nothing over the main window, nothing moving: then only the text side can differ from
  // the last frame (other input counts in full_frames_due_).
  return options_.partial_frames && text_panel_.editor().focused() && frame_good_ == drawn_good_ &&
         frame_latest_ == drawn_latest_ && settings_.view == view_before && select_tab_ == 0 && !worker_b_ &&
         !animating() && only_window_shown("attnscope");
}

void Explorer::draw_data(int width, int height, const PixelRect* scissor) {
  glViewport(0, 0, width, height);
  const ImVec4 background = window_background();
  glClearColor(background.x, background.y, background.z, 1);
  if (scissor) {
    glEnable(GL_SCISSOR_TEST);
    glScissor(scissor->x, scissor->y, scissor->width, scissor->height);
  }
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Explorer::rasterise(int width, int height, bool text_side_only) {
  const bool partial =
      back_buffer_kept_ && width == drawn_width_ && height == drawn_height_ && text_side_only && full_frames_due_ == 0;
  drawn_width_ = width, drawn_height_ = height;
  // ImGui lays out a change over the frames after it (a scroll bar shows once the content's new
  // size is known): those are drawn whole too.
  if (!text_side_only) full_frames_due_ = kSettleFrames + 1;
  if (partial) {
    ImDrawData& data = *ImGui::GetDrawData();
    std::vector<ImVec4> whole_clips;  // for the check, which draws the frame whole after
    if (options_.check_partial_frames)
      for (int k = 0; k < data.CmdListsCount; ++k)
        for (const ImDrawCmd& c : data.CmdLists[k]->CmdBuffer) whole_clips.push_back(c.ClipRect);
    const PixelRect scissor = clip_draw_data(data, text_side_, height);
    draw_data(width, height, &scissor);
    ++partial_frames_;
    if (options_.check_partial_frames) script_.add_mismatched_pixels(check_partial_frame(width, height, whole_clips));
  } else {
    draw_data(width, height, nullptr);
  }
  last_frame_whole_ = !partial;
  drawn_good_ = frame_good_, drawn_latest_ = frame_latest_;
  full_frames_due_ = std::max(0, full_frames_due_ - 1);
}

// --check-partial-frames: the partial frame just drawn in the back buffer against the same frame
// then drawn whole there (the frame presented); every pixel must be the same: what the text side
// did not redraw is the frame before, which must not have changed.
long long Explorer::check_partial_frame(int width, int height, const std::vector<ImVec4>& whole_clips) {
  const std::vector<uint8_t> partial = read_back_buffer(width, height);
  ImDrawData& data = *ImGui::GetDrawData();
  size_t i = 0;
  for (int k = 0; k < data.CmdListsCount; ++k)
    for (ImDrawCmd& c : data.CmdLists[k]->CmdBuffer) c.ClipRect = whole_clips[i++];
  draw_data(width, height, nullptr);
  const std::vector<uint8_t> whole = read_back_buffer(width, height);
  long long mismatched = 0;
  for (size_t p = 0; p + 3 < whole.size(); p += 4) mismatched += !std::equal(&whole[p], &whole[p] + 3, &partial[p]);
  return mismatched;
}

ScriptedFrame Explorer::scripted_frame(int width, int height, double frame_seconds) const {
  const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return {*worker_,
          frame_shown_.get(),
          text_panel_.text(),
          screenshot_ready(),
          settings_.view.view,
          width,
          height,
          frame_seconds,
          last_frame_whole_,
          partial_frames_,
          audit_,
          renderer ? renderer : ""};
}

// After a frame: true when a scripted run is over. An ordinary session builds nothing here. The
// typing benchmark's latency runs up to the frame's presentation; the other scripts see the frame
// before it is presented (a screenshot reads the back buffer).
bool Explorer::script_over(int width, int height, double frame_start, bool presented) {
  if (!script_.active() || script_.typing() != presented) return false;
  const bool over = script_.step(scripted_frame(width, height, glfwGetTime() - frame_start), glfwGetTime(),
                                 frames_drawn_, settle_frames_);
  if (const auto view = script_.take_next_view()) {  // --then-views
    settings_.view.view = *view;
    select_tab_ = 2;
    settle_frames_ = std::max(settle_frames_, 1);
  }
  return over;
}

int Explorer::run() {
  while (!window_.should_close()) {
    if (!wait_for_work()) {
      if (script_.idle_checking() && script_.idle_step(glfwGetTime(), frames_drawn_, settle_frames_)) return 0;
      continue;
    }
    const double frame_start = glfwGetTime();
    for (const std::string& path : window_.take_dropped_files())
      if (text_panel_.load_file(path)) submit();
    if (script_.typing()) script_.type_due_keys(text_panel_, worker_->model_status().loaded, glfwGetTime());
    seen_ = serial_of(worker_->latest());
    seen_jobs_ = job_updates();
    if (worker_b_) seen_b_ = serial_of(worker_b_->latest()), seen_comparison_ = serial_of(comparison_.latest());
    was_loaded_ = worker_->model_status().loaded;
    audit_.clear();
    const ViewState view_before = settings_.view;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    script_.mouse();
    ImGui::NewFrame();
    draw_frame();
    ImGui::Render();
    audit_.check_windows();
    if (hold_for_quick_run()) continue;
    // The run starts before this frame is rasterised, not after it is shown: without a GPU the
    // drawing and the model then share the cores instead of taking turns (BERT-base size at 128
    // tokens: about 25 ms less from a key to its analysis).
    send_asked_runs();
    int w = 0, h = 0;
    window_.framebuffer_size(w, h);
    rasterise(w, h, text_side_only(view_before));
    if (script_.times_frames()) glFinish();  // count the GL work of the frame too
    ++frames_drawn_;
    settle_frames_ = std::max(0, settle_frames_ - 1);
    if (!(settings_.view == view_before) || select_tab_ > 0)
      settle_frames_ = std::max(settle_frames_, 1);  // show what this frame changed
    if (script_over(w, h, frame_start, false)) return 0;
    glfwSwapBuffers(window_.get());
    script_.trace_shown(frame_shown_.get(), text_panel_.text());
    if (script_over(w, h, frame_start, true)) return 0;
  }
  window_.size(settings_.window_width, settings_.window_height);
  try {
    save_settings(settings_path_, settings_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnscope: settings not saved: %s\n", e.what());
  }
  return 0;
}

int run_explorer(const ExplorerOptions& options) {
  LoadedSettings loaded = load_settings(options.settings_path.empty() ? default_settings_path()
                                                                      : std::filesystem::path(options.settings_path));
  if (!loaded.warning.empty()) std::fprintf(stderr, "attnscope: %s\n", loaded.warning.c_str());
  Explorer explorer(options, std::move(loaded.settings), loaded.warning);
  return explorer.run();
}

}  // namespace attnscope::ui
