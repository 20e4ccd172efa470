#pragma once
// The desktop explorer: owns the window, the worker, the panels and the view state; runs the
// main loop, which sleeps until something happens (input, a finished analysis) and redraws only
// then, or a few times a second while something runs. With a screenshot path it renders once
// everything is analysed, saves and returns.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "figures/map_pyramid.h"
#include "model/capture_plan.h"
#include "typing_bench.h"
#include "view_state.h"

namespace attnscope::ui {

// A long text's pair masks the window keeps by default for its views, their outlines and the
// Compare view (AnalysisRun::long_pair_mask_bytes; a head's not kept is made again when shown: 0.1
// s from S, 0.7 s from a lens's map at 8,192 tokens, and a comparison of pairs from a lens makes
// every head's on both sides). 128 MiB holds every head's of a ModernBERT-base-sized model up to
// some 2,850 tokens however dense its heads, a trained model's far longer (its masks are mostly
// empty chunks); past them, the heads that fit, in order.
inline constexpr uint64_t kWindowPairMaskBytes = uint64_t{128} << 20;

struct ExplorerOptions {
  std::string model;  // empty: the one in the settings, else the bundled test model
  std::string device = "auto", precision = "float32";
  std::optional<std::string> text;  // initial text
  std::string examples_dir;
  std::optional<View> view;
  std::optional<MatrixKind> matrix;
  std::optional<int> layer, head;
  std::optional<bool> presentation;
  std::optional<bool> head_roles;  // the overview's role grid
  std::string screenshot;          // save the window here and exit
  // The screenshot taken while a long text's scan for pairs is under way: the Statistics view holds
  // the first statistics the scan hands on (a few heads') and is saved with them (docs and tests).
  bool screenshot_mid_scan = false;
  // Once the screenshot is saved, each of these views in turn, saved beside it as NAME-VIEW.png
  // (one window and one analysis for several pictures: the GUI tests' layout sweeps).
  std::vector<View> then_views;
  // Before the screenshot, once the analysis is shown: left clicks at these window pixels, in
  // order, each given to ImGui as a mouse's press and release (what the tests click).
  std::vector<std::pair<float, float>> clicks;
  // Then these keys (letters, digits, '>' and '<' for the right and left arrows), one at a time,
  // each once the analysis it asks for is shown, given to ImGui as a press and a release (what a
  // user's shortcut does); the editor's text and each key's seconds from its press to the first
  // frame ready with what it asked for are printed at the end ({"text": ..., "key_seconds": [...]}
  // on standard output).
  std::string keys;
  std::string result;  // show this result file of `attnscope-cli analyze` without its model (model: for Model...)
  std::string corpus_result;                // open this saved corpus run
  std::string corpus_result_b;              // ... and compare it with this one
  std::string compare_model, compare_text;  // compare mode: B is this model on A's text, or A's model on this text
  std::string compare_shown;                // the compare view's figure: side, changed or stats (empty: side)
  std::string download;                     // download this model id (picker with progress), then open it
  std::string settings_path;                // empty: the user's config directory
  int width = 0, height = 0;                // 0: from the settings
  double timeout = 300;                     // seconds a screenshot may wait for the analysis
  int bench_frames = 0;                     // > 0: once analysed, time this many frames, print the figures, exit
  int bench_typing = 0;                     // > 0: type this many bursts into the editor, print the latencies, exit
  double typing_interval = 0;               // seconds between scripted keys (0: the benchmark's 80 ms)
  double typing_first_pause = 0;            // seconds from the opened text shown to the first burst
  // Where the scripted keys go (--typing-at).
  TypingPlace typing_at = TypingPlace::Start;
  bool typing_at_once = false;  // the first burst during the text's first run (TypingBenchOptions::after_first_run)
  double idle_check = 0;        // > 0: once analysed, wait idle this many seconds, print the frames drawn, exit
  bool trace_shown = false;     // print the wall-clock time of each frame that first shows a new text's analysis
  bool partial_frames = true;   // a frame that changes only the text side redraws only it (gl/partial_frames.h)
  bool check_partial_frames = false;  // draw each partial frame in full too and count the pixels that differ (tests)
  // A run the last one says will take at most this many seconds holds back the frame that asked
  // for it (Explorer::hold_for_quick_run); 0: never. 0.1 s is the usual limit under which an answer
  // feels instantaneous, so the edit's echo waiting that long goes unnoticed; at 50 ms MiniLM's
  // 128-token run (about 40 ms here, more when the machine is slow) crossed the limit back and
  // forth and its latency with it.
  double quick_run = 0.1;
  size_t max_length = 0;        // tokens kept (0: the settings', else the model's default 128)
  float zoom = 1;               // the figure views' zoom at the start (1: a figure fits its panel)
  int64_t pair_table_rows = 0;  // the most pairs the Pairs view's table lists (0: its default, 2^18)
  PyramidOptions long_maps;     // a long text's map in the Head view, drawn from tiles (figures/map_pyramid.h)
  CapturePlan long_texts;       // past it a text keeps its queries and keys, not its maps (model/capture_plan.h)
  uint64_t pair_mask_bytes = kWindowPairMaskBytes;  // such a text's pair masks kept (AnalysisRequest)
};

// Returns the process exit status; throws attnscope::Error when the window cannot be opened.
int run_explorer(const ExplorerOptions& options);

}  // namespace attnscope::ui
