#include "window_script.h"

#include <sys/resource.h>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/error.h"
#include "screenshot.h"

namespace attnscope::ui {

WindowScript::WindowScript(const ExplorerOptions& options) : options_(options) {
  if (options.bench_typing > 0) {
    TypingBenchOptions typing{options.bench_typing};
    if (options.typing_interval > 0) typing.key_interval = options.typing_interval;
    typing.place = options.typing_at;
    typing.after_first_run = !options.typing_at_once;
    typing.first_pause = options.typing_first_pause;
    typing_.emplace(typing);
  }
}

bool WindowScript::active() const {
  return !options_.screenshot.empty() || options_.bench_frames > 0 || typing_ || options_.idle_check > 0;
}

bool WindowScript::polling() const {
  return !options_.screenshot.empty() || options_.bench_frames > 0 || (options_.idle_check > 0 && !idle_checking());
}

double WindowScript::wake_at() const { return typing_ ? typing_->next_moment() : idle_checking() ? idle_until_ : 0; }

double WindowScript::next_key() const { return typing_ && typing_->next_moment() > 0 ? typing_->next_moment() : 0; }

bool WindowScript::key_due(double now) const { return typing_ && now >= typing_->next_moment(); }

void WindowScript::type_due_keys(TextPanel& text, bool model_loaded, double now) {
  if (!typing_ || !model_loaded) return;
  const std::string keys = typing_->keys_due(now);
  if (keys.empty()) return;
  // The cursor placed at the first key whether or not the editor has focus already (it may have it
  // from the start, its cursor at the text's start, which typed every burst there).
  if (!text.editor().focused() || !cursor_placed_) text.editor().focus();
  if (!cursor_placed_) {
    auto& buffer = text.editor().buffer();
    buffer.move_to(typing_position(buffer.text(), typing_->options().place), false);
    cursor_placed_ = true;
  }
  text.editor().type(keys);
}

// --trace-shown: when a presented frame first shows the analysis of the editor's current text,
// one line with the wall-clock time, so a script typing from outside (bench/run_typing_x11.sh)
// measures the latency with the window's own clock on one side only, and what the worker measured.
void WindowScript::trace_shown(const AnalysisSnapshot* shown, const std::string& text) {
  if (!options_.trace_shown) return;
  if (!shown || shown->serial == traced_ || shown->text != text) return;
  traced_ = shown->serial;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const double drawn = std::chrono::duration<double>(std::chrono::steady_clock::now() - shown->finished).count();
  std::fprintf(
      stderr,
      "attnscope: shown %.6f bytes %zu forward_ms %.2f analysis_ms %.2f thumbnails_ms %.2f waited_ms %.2f drawn_ms "
      "%.2f\n",
      std::chrono::duration<double>(now).count(), shown->text.size(), shown->forward_seconds * 1e3,
      shown->analysis_seconds * 1e3, shown->grid_seconds * 1e3, shown->waited_seconds * 1e3, drawn * 1e3);
}

bool WindowScript::typing_step(const ScriptedFrame& f, double now) {
  // What the frame drew: a run ending while the frame was rasterised is shown by the next one.
  const AnalysisSnapshot* shown = f.drawn;
  const bool current = shown && shown->text == f.text && !f.worker.busy();
  if (shown && shown->serial != typing_seen_ && current)
    typing_->analysis_shown(shown->forward_seconds, shown->analysis_seconds, shown->grid_seconds,
                            shown->tokens_continued);
  if (current) typing_seen_ = shown->serial;
  typing_->frame_presented(now, f.seconds, current, f.whole);
  if (!typing_->done()) return false;
  nlohmann::json summary = typing_->summary(shown ? shown->encoding.size() : 0, f.worker.abandoned(), current);
  summary["partial_frames"] = f.partial_frames;
  summary["gl_renderer"] = f.renderer;
  if (options_.check_partial_frames) summary["partial_frame_mismatched_pixels"] = mismatched_pixels_;
  std::printf("%s\n", summary.dump().c_str());
  return true;
}

bool WindowScript::idle_step(double now, uint64_t frames_drawn, int& settle_frames) {
  const auto cpu_seconds = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
  };
  if (idle_until_ == 0) {  // the analysis is shown: from now on nothing changes
    idle_until_ = now + options_.idle_check;
    idle_frames_start_ = frames_drawn;
    idle_cpu_start_ = cpu_seconds();
    settle_frames = 0;
    return false;
  }
  if (now < idle_until_) return false;
  const double cpu = cpu_seconds() - idle_cpu_start_;
  std::printf(
      "{\"idle_seconds\": %.3f, \"frames_drawn\": %llu, \"cpu_seconds\": %.4f, \"cpu_share_of_one_core\": %.5f}\n",
      options_.idle_check, static_cast<unsigned long long>(frames_drawn - idle_frames_start_), cpu,
      cpu / options_.idle_check);
  return true;
}

bool WindowScript::click_step() {
  ImGuiIO& io = ImGui::GetIO();
  if (click_frames_ > 0) return true;          // under way (mouse)
  io.ConfigFlags |= ImGuiConfigFlags_NoMouse;  // scripted runs ignore the pointer: no hover left in the screenshot
  if (clicks_done_ == options_.clicks.size()) return false;
  io.ConfigFlags &= ~ImGuiConfigFlags_NoMouse;
  click_frames_ = 2;
  ready_frames_ = 0;  // what the click opens is analysed and settled again before the screenshot
  return true;
}

bool WindowScript::key_step() {
  if (key_frames_ > 0) return true;  // under way (mouse)
  if (keys_done_ == options_.keys.size()) return false;
  key_frames_ = 2;
  ready_frames_ = 0;  // what the key asks for is analysed and settled again before the next
  return true;
}

namespace {

// GLFW's key code of a letter or digit, or of the right or left arrow for '>' or '<' (ImGui 1.86
// indexes KeysDown by them).
int glfw_key(char c) {
  if (c == '>') return GLFW_KEY_RIGHT;  // the next head
  if (c == '<') return GLFW_KEY_LEFT;
  if (c >= 'a' && c <= 'z') return GLFW_KEY_A + (c - 'a');
  if (c >= 'A' && c <= 'Z') return GLFW_KEY_A + (c - 'A');
  if (c >= '0' && c <= '9') return GLFW_KEY_0 + (c - '0');
  throw Error(std::string("--keys: '") + c + "' is not a letter, a digit, '>' or '<'");
}

}  // namespace

// ImGui 1.86 takes the buttons' and keys' state as it stands each frame: the press in the first
// frame, the release in the second.
void WindowScript::mouse() {
  if (key_frames_ > 0) {
    const int key = glfw_key(options_.keys[keys_done_]);
    ImGui::GetIO().KeysDown[key] = key_frames_ == 2;
    if (key_frames_ == 2) key_pressed_ = std::chrono::steady_clock::now();
    if (--key_frames_ == 0) ++keys_done_;
    return;
  }
  if (click_frames_ == 0) return;
  ImGuiIO& io = ImGui::GetIO();
  const auto [x, y] = options_.clicks[clicks_done_];
  io.MousePos = ImVec2(x, y);
  io.MouseDown[ImGuiMouseButton_Left] = click_frames_ == 2;
  if (--click_frames_ == 0) ++clicks_done_;
}

// --bench-frames: false until enough frames are timed, then their figures printed.
bool WindowScript::frames_step(const ScriptedFrame& f) {
  if (ready_frames_ > 4) frame_ms_.push_back(f.seconds * 1000);
  if (static_cast<int>(frame_ms_.size()) < options_.bench_frames) return false;
  std::sort(frame_ms_.begin(), frame_ms_.end());
  const auto at = [this](double q) { return frame_ms_[static_cast<size_t>(q * (frame_ms_.size() - 1))]; };
  std::printf(
      "{\"view\": \"%s\", \"tokens\": %zu, \"frames\": %zu, \"median_ms\": %.3f, \"p95_ms\": %.3f, \"max_ms\": %.3f}\n",
      view_name(f.view), f.worker.latest()->encoding.size(), frame_ms_.size(), at(0.5), at(0.95), frame_ms_.back());
  return true;
}

// Saves the screenshot (the first, or the view of then_views now shown): false while views remain.
bool WindowScript::screenshot_step(const ScriptedFrame& f) {
  std::string path = options_.screenshot;
  if (views_shot_ > 0) {
    const size_t stem = path.ends_with(".png") ? path.size() - 4 : path.size();
    path = path.substr(0, stem) + "-" + view_name(options_.then_views[views_shot_ - 1]) + ".png";
  }
  save_screenshot(path, f.width, f.height);
  for (const std::string& finding : f.audit.findings())
    std::fprintf(stderr, "attnscope: layout: in the %s view: %s\n", view_name(f.view), finding.c_str());
  if (views_shot_ == options_.then_views.size()) return true;
  next_view_ = options_.then_views[views_shot_++];
  ready_frames_ = 0;  // the next view is analysed and settled before its screenshot
  return false;
}

bool WindowScript::step(const ScriptedFrame& f, double now, uint64_t frames_drawn, int& settle_frames) {
  if (!active()) return false;
  if (const ModelStatus m = f.worker.model_status(); !m.error.empty()) throw Error(m.error);
  if (typing_ && f.worker.model_status().loaded) return typing_step(f, now);
  // A few frames after the analysis is in: textures are made and the layout has settled.
  ready_frames_ = f.ready ? ready_frames_ + 1 : 0;
  if (ready_frames_ == 1 && key_pressed_ && key_frames_ == 0) {
    key_seconds_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - *key_pressed_).count());
    key_pressed_.reset();
  }
  if (ready_frames_ < 4) {
    if (now > options_.timeout) throw Error("the analysis did not finish within the timeout (--timeout)");
    return false;
  }
  if (click_step() || key_step()) return false;
  if (!options_.keys.empty() && views_shot_ == 0)
    std::printf("%s\n", nlohmann::json{{"text", f.text}, {"key_seconds", key_seconds_}}.dump().c_str());
  if (options_.idle_check > 0) return idle_step(now, frames_drawn, settle_frames);
  if (options_.bench_frames > 0 && !frames_step(f)) return false;
  if (!options_.screenshot.empty() && !screenshot_step(f)) return false;
  if (const auto latest = f.worker.latest(); latest && !latest->error.empty())
    std::fprintf(stderr, "attnscope: %s\n", latest->error.c_str());
  return true;
}

}  // namespace attnscope::ui
