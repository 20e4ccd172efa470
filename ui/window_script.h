#pragma once
// What the tests and the benchmarks drive the real window with, apart from the explorer itself:
// the screenshot (after scripted clicks), the frame and typing benchmarks, the idle check and
// --trace-shown. The explorer asks it when to wake and hands it each frame it draws; it keeps
// its own bookkeeping and prints its figures. Nothing here runs in an ordinary session.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis_worker.h"
#include "explorer.h"
#include "layout_audit.h"
#include "panels/text_panel.h"
#include "typing_bench.h"
#include "view_state.h"

namespace attnscope::ui {

// A frame just drawn, as a scripted step reads it.
struct ScriptedFrame {
  const AnalysisWorker& worker;
  const AnalysisSnapshot* drawn;  // the analysis the frame drew (null before the first)
  const std::string& text;        // the editor's
  bool ready = false;             // the analysis of the shown view is in and drawn (Explorer::screenshot_ready)
  View view = View::Grid;
  int width = 0, height = 0;
  double seconds = 0;  // the frame's time
  bool whole = true;   // drawn whole, not only its text side
  int partial_frames = 0;
  const LayoutAudit& audit;
  std::string renderer;  // the OpenGL renderer drawing the window (GL_RENDERER), for the benchmarks' reports
};

class WindowScript {
 public:
  explicit WindowScript(const ExplorerOptions& options);

  // A scripted run: the window ignores the pointer (no stray tooltips) and exits when done.
  bool active() const;
  bool typing() const { return typing_.has_value(); }
  // Frames are timed: their GL work is finished before the clock is read.
  bool times_frames() const { return options_.bench_frames > 0 || typing_; }

  // When to wake: screenshots and the frame benchmark draw as fast as they can (polling); the
  // typing benchmark and the idle check wait as a user's window does, until their next moment.
  bool polling() const;
  double wake_at() const;   // 0: no scripted moment
  double next_key() const;  // the next scripted key's moment, 0 when none
  bool key_due(double now) const;
  bool idle_checking() const { return idle_until_ > 0; }

  // The typing benchmark's keys that are due, typed into the editor (at its start or end, as the
  // options say).
  void type_due_keys(TextPanel& text, bool model_loaded, double now);
  // Between the backend's reading of the pointer and ImGui's frame: the scripted click's or key's
  // press, then its release.
  void mouse();
  void trace_shown(const AnalysisSnapshot* drawn, const std::string& text);       // --trace-shown
  void add_mismatched_pixels(long long pixels) { mismatched_pixels_ += pixels; }  // --check-partial-frames

  // After a frame of an active script: true when it is over (its figures printed, its screenshot saved).
  // Throws attnscope::Error when the model failed or the analysis did not come in time.
  bool step(const ScriptedFrame& frame, double now, uint64_t frames_drawn, int& settle_frames);
  // After a screenshot, the next of ExplorerOptions::then_views to show (once; empty when none).
  std::optional<View> take_next_view() { return std::exchange(next_view_, std::nullopt); }
  // The idle check, also when woken with nothing to draw: true when it is over.
  bool idle_step(double now, uint64_t frames_drawn, int& settle_frames);

 private:
  bool typing_step(const ScriptedFrame& frame, double now);
  bool click_step();
  bool key_step();
  bool frames_step(const ScriptedFrame& frame);
  bool screenshot_step(const ScriptedFrame& frame);

  ExplorerOptions options_;
  std::optional<TypingBench> typing_;
  uint64_t typing_seen_ = 0;
  bool cursor_placed_ = false;  // the typing benchmark's first key puts the cursor where it types
  size_t clicks_done_ = 0;
  int click_frames_ = 0;  // frames of the click under way still to come
  size_t keys_done_ = 0;
  int key_frames_ = 0;  // frames of the key press under way still to come
  // Seconds from each key's press to the first frame ready with what it asked for (--keys prints them).
  std::vector<double> key_seconds_;
  std::optional<std::chrono::steady_clock::time_point> key_pressed_;
  uint64_t traced_ = 0;
  int ready_frames_ = 0;
  std::vector<double> frame_ms_;
  double idle_until_ = 0, idle_cpu_start_ = 0;
  uint64_t idle_frames_start_ = 0;
  long long mismatched_pixels_ = 0;
  size_t views_shot_ = 0;  // of then_views
  std::optional<View> next_view_;
};

}  // namespace attnscope::ui
