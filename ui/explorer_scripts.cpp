// The explorer's scripted runs: the screenshot (after scripted clicks), the frame and typing
// benchmarks, the idle check and --trace-shown (what the tests and bench/ drive the real window with).
#include <sys/resource.h>

#include "explorer_app.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

#include "base/error.h"
#include "screenshot.h"

namespace attnscope::ui {

// --trace-shown: when a presented frame first shows the analysis of the editor's current text,
// one line with the wall-clock time, so a script typing from outside (bench/run_typing_x11.sh)
// measures the latency with the window's own clock on one side only, and what the worker measured.
void Explorer::trace_shown() {
  if (!options_.trace_shown) return;
  const auto shown = worker_->latest_good();
  if (!shown || shown->serial == traced_ || shown->text != text_panel_.text()) return;
  traced_ = shown->serial;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const double drawn = std::chrono::duration<double>(std::chrono::steady_clock::now() - shown->finished).count();
  std::fprintf(stderr,
               "attnscope: shown %.6f bytes %zu forward_ms %.2f analysis_ms %.2f thumbnails_ms %.2f waited_ms %.2f "
               "drawn_ms %.2f\n",
               std::chrono::duration<double>(now).count(), shown->text.size(), shown->forward_seconds * 1e3,
               shown->analysis_seconds * 1e3, shown->grid_seconds * 1e3, shown->waited_seconds * 1e3, drawn * 1e3);
}

bool Explorer::typing_step(double frame_seconds) {
  const auto shown = worker_->latest_good();
  const bool current = shown && shown->text == text_panel_.text() && !worker_->busy();
  if (shown && shown->serial != typing_seen_ && current)
    typing_->analysis_shown(shown->forward_seconds, shown->analysis_seconds, shown->grid_seconds);
  if (current) typing_seen_ = shown->serial;
  typing_->frame_presented(glfwGetTime(), frame_seconds, current, last_frame_whole_);
  if (!typing_->done()) return false;
  nlohmann::json summary = typing_->summary(shown ? shown->encoding.size() : 0, worker_->abandoned(), current);
  summary["partial_frames"] = partial_frames_;
  if (options_.check_partial_frames) summary["partial_frame_mismatched_pixels"] = partial_mismatched_pixels_;
  std::printf("%s\n", summary.dump().c_str());
  return true;
}

// --check-partial-frames: the partial frame just drawn in the back buffer against the same frame
// then drawn whole there (the frame presented); every pixel must be the same: what the text side
// did not redraw is the frame before, which must not have changed.
void Explorer::check_partial_frame(int width, int height, const std::vector<ImVec4>& whole_clips) {
  const std::vector<uint8_t> partial = read_back_buffer(width, height);
  ImDrawData& data = *ImGui::GetDrawData();
  size_t i = 0;
  for (int k = 0; k < data.CmdListsCount; ++k)
    for (ImDrawCmd& c : data.CmdLists[k]->CmdBuffer) c.ClipRect = whole_clips[i++];
  draw_data(width, height, nullptr);
  const std::vector<uint8_t> whole = read_back_buffer(width, height);
  for (size_t p = 0; p + 3 < whole.size(); p += 4)
    partial_mismatched_pixels_ += !std::equal(&whole[p], &whole[p] + 3, &partial[p]);
}

bool Explorer::idle_step() {
  const auto cpu_seconds = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
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
  std::printf(
      "{\"idle_seconds\": %.3f, \"frames_drawn\": %llu, \"cpu_seconds\": %.4f, \"cpu_share_of_one_core\": %.5f}\n",
      options_.idle_check, static_cast<unsigned long long>(frames_drawn_ - idle_frames_start_), cpu,
      cpu / options_.idle_check);
  return true;
}

bool Explorer::click_step() {
  ImGuiIO& io = ImGui::GetIO();
  if (click_frames_ > 0) return true;          // under way (scripted_mouse)
  io.ConfigFlags |= ImGuiConfigFlags_NoMouse;  // scripted runs ignore the pointer: no hover left in the screenshot
  if (clicks_done_ == options_.clicks.size()) return false;
  io.ConfigFlags &= ~ImGuiConfigFlags_NoMouse;
  click_frames_ = 2;
  ready_frames_ = 0;  // what the click opens is analysed and settled again before the screenshot
  return true;
}

// Between the backend's reading of the pointer and ImGui's frame: the click's press in its first
// frame, its release in the second (ImGui 1.86 takes the buttons' state as it stands each frame).
void Explorer::scripted_mouse() {
  if (click_frames_ == 0) return;
  ImGuiIO& io = ImGui::GetIO();
  const auto [x, y] = options_.clicks[clicks_done_];
  io.MousePos = ImVec2(x, y);
  io.MouseDown[ImGuiMouseButton_Left] = click_frames_ == 2;
  if (--click_frames_ == 0) ++clicks_done_;
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
  if (click_step()) return false;
  if (options_.idle_check > 0) return idle_step();
  if (options_.bench_frames > 0) {
    if (ready_frames_ > 4) frame_ms_.push_back(frame_seconds * 1000);
    if (static_cast<int>(frame_ms_.size()) < options_.bench_frames) return false;
    std::sort(frame_ms_.begin(), frame_ms_.end());
    const auto at = [this](double q) { return frame_ms_[static_cast<size_t>(q * (frame_ms_.size() - 1))]; };
    std::printf(
        "{\"view\": \"%s\", \"tokens\": %zu, \"frames\": %zu, \"median_ms\": %.3f, \"p95_ms\": %.3f, \"max_ms\": "
        "%.3f}\n",
        view_name(settings_.view.view), worker_->latest()->encoding.size(), frame_ms_.size(), at(0.5), at(0.95),
        frame_ms_.back());
  }
  if (!options_.screenshot.empty()) {
    save_screenshot(options_.screenshot, w, h);
    for (const std::string& finding : audit_.findings())
      std::fprintf(stderr, "attnscope: layout: %s\n", finding.c_str());
  }
  if (const auto latest = worker_->latest(); latest && !latest->error.empty())
    std::fprintf(stderr, "attnscope: %s\n", latest->error.c_str());
  return true;
}

}  // namespace attnscope::ui
