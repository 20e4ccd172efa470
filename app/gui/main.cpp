// attnscope: the desktop explorer. Every layer and head of an encoder or a decoder, live, for any text.
// With --screenshot it renders the asked view once the text is analysed, saves it and exits.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/error_message.h"
#include "corpus/allocator_tuning.h"
#include "model/tensor_threads.h"
#include "explorer.h"
#include "figures/figure_options.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  if (!in || !(all << in.rdbuf())) throw std::runtime_error(path + ": cannot be read");
  return all.str();
}

// What the command line gives in its own words, before it becomes ExplorerOptions.
struct CommandLine {
  std::string text, file, view, matrix;
  std::vector<std::string> then_views;
  int layer = -1, head = -1;
  bool presentation = false, full_frames = false, head_roles = false;
  double typing_interval_ms = 0, quick_run_ms = 0, typing_first_pause = 0;
  double pair_mask_mib = attnscope::ui::kWindowPairMaskBytes >> 20;
  std::string typing_at = "start";
};

// What to open and what to show of it.
void add_input_options(CLI::App& app, attnscope::ui::ExplorerOptions& o, CommandLine& in) {
  app.add_option("--model", o.model,
                 "Checkpoint folder, GGUF file (a decoder's) or Hugging Face model id (default: the last used, else "
                 "the bundled MiniLM)");
  app.add_option("--device", o.device, "auto (CUDA when present), cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--precision", o.precision, "float32, or float16 / bfloat16 on CUDA")->capture_default_str();
  app.add_option("--text", in.text, "Text to analyse");
  app.add_option("--file", in.file, "UTF-8 text file to analyse")->excludes("--text");
  app.add_option("--result", o.result,
                 "Show a result file of `attnscope-cli analyze --out` without its model: its text, analysis and "
                 "maps (a long text's made again from its queries and keys); editing the text needs a model")
      ->excludes("--text")
      ->excludes("--file")
      ->check(CLI::ExistingFile);
  app.add_option("--view", in.view,
                 "View to show: grid, head, separators, pairs, stats, layers, lines, corpus, compare")
      ->check(CLI::IsMember({"grid", "head", "separators", "pairs", "stats", "layers", "lines", "corpus", "compare"}));
  app.add_option("--matrix", in.matrix, "attention, similarity, cosine, norm or rollout")
      ->check(CLI::IsMember({"attention", "similarity", "cosine", "norm", "rollout"}));
  app.add_option("--layer", in.layer, "Focused layer, from 0")->check(CLI::NonNegativeNumber);
  app.add_option("--head", in.head, "Focused head, from 0")->check(CLI::NonNegativeNumber);
  app.add_flag("--presentation", in.presentation, "Start in presentation mode (large fonts, high contrast)");
  app.add_flag("--head-roles", in.head_roles, "Show the role grid (every head's strongest role) in the overview");
  app.add_option("--download", o.download,
                 "Download this model id into the Hugging Face cache (progress in the window), then open it");
  // Also by the command line's names for the same files (attnscope-cli figure --corpus).
  app.add_option("--corpus-result,--corpus", o.corpus_result,
                 "Open a saved corpus result (attnscope-cli corpus --out) in the Corpus view");
  app.add_option("--corpus-result-b,--corpus-b", o.corpus_result_b,
                 "... and compare it with this saved corpus result (B) in the Corpus view");
  auto* compare_model = app.add_option("--compare-model", o.compare_model,
                                       "Compare mode: B is this model (folder or id) on the same text");
  app.add_option("--compare-text", o.compare_text, "Compare mode: B is the same model on this text")
      ->excludes(compare_model);
  app.add_option("--compare-shown", o.compare_shown,
                 "Compare view: side (the head, A beside B and B - A), changed (every head), stats, "
                 "or A beside B for separators, pairs, layers, lines")
      ->check(CLI::IsMember({"side", "changed", "stats", "separators", "pairs", "layers", "lines"}));
}

// A scripted window: a screenshot, the clicks and keys before it.
void add_script_options(CLI::App& app, attnscope::ui::ExplorerOptions& o, CommandLine& in) {
  app.add_option("--screenshot", o.screenshot, "Render the view once analysed, save it as this PNG, and exit");
  app.add_option("--then-views", in.then_views,
                 "With --screenshot: once it is saved, show each of these views in turn and save each beside it as "
                 "NAME-VIEW.png (NAME: the screenshot's path without .png)")
      ->delimiter(',')
      ->check(CLI::IsMember({"grid", "head", "separators", "pairs", "stats", "layers", "lines", "corpus", "compare"}))
      ->needs(app.get_option("--screenshot"));
  app.add_flag("--screenshot-mid-scan", o.screenshot_mid_scan,
               "With --screenshot and --view stats: save it while a long text's scan for pairs is under way, the view "
               "holding the statistics of the first heads scanned")
      ->needs(app.get_option("--screenshot"));
  app.add_option("--click", o.clicks,
                 "With --screenshot: once the view is drawn, left-click at X Y (window pixels) first; repeatable")
      ->needs(app.get_option("--screenshot"));
  app.add_option("--keys", o.keys,
                 "With --screenshot: after the clicks, press these keys (letters, digits; > and < the right and left "
                 "arrows: the next and previous head) one at a time, each once what the last asked for is shown; print "
                 "the text and each key's seconds from its press to what it asked for shown at the end")
      ->needs(app.get_option("--screenshot"));
}

// The window, its settings and how much of a long text it keeps.
void add_window_options(CLI::App& app, attnscope::ui::ExplorerOptions& o, CommandLine& in) {
  app.add_option("--width", o.width, "Window width in pixels")->check(CLI::Range(320, 16384));
  app.add_option("--height", o.height, "Window height in pixels")->check(CLI::Range(240, 16384));
  app.add_option("--settings", o.settings_path, "Settings file (default: $XDG_CONFIG_HOME/attnscope/settings.json)");
  app.add_option("--timeout", o.timeout, "Seconds a screenshot may wait for the analysis")->capture_default_str();
  app.add_option("--max-len", o.max_length, "Keep at most N tokens, the special ones included (default 128)")
      ->check(CLI::Range(2, 1 << 20));
  app.add_option("--maps-up-to", o.long_texts.maps_up_to,
                 "Keep every attention map of a text of at most this many tokens; a longer one keeps its queries and "
                 "keys and its maps are made again where a view shows them. 0 (default): while every map and "
                 "similarity fits in --memory-share of the memory")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--memory-share", o.long_texts.memory_share,
                 "Share of the memory every map and similarity of a text may take: this machine's, or on a GPU the "
                 "less of it and the GPU's (default 0.25)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--pair-masks", in.pair_mask_mib,
                 "MiB a long text's pair masks may take together for its views and the Compare view (default 128); a "
                 "head's past them is made again when shown")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--zoom", o.zoom, "The figure views' zoom at the start (1: a figure fits its panel)")
      ->check(CLI::Range(0.5, 10000.0));
  app.add_option("--pair-table-rows", o.pair_table_rows,
                 "The most pairs the Pairs view's table lists (default 262,144): a head with more lists the first in "
                 "the text or its strongest, as chosen above the table")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 32));
  app.add_option("--map-top-cells", o.long_maps.top_cells,
                 "A long text's map in the Head view is drawn from tiles: its coarsest level, made first, at most this "
                 "many cells a side (default 1024)")
      ->check(CLI::Range(1, 1 << 20));
}

// Measurements: frames, typing, idleness.
void add_measure_options(CLI::App& app, attnscope::ui::ExplorerOptions& o, CommandLine& in) {
  in.quick_run_ms = o.quick_run * 1000;
  app.add_option("--bench-frames", o.bench_frames,
                 "Once analysed, time this many frames (no vsync), print the median and 95th percentile, exit")
      ->check(CLI::Range(1, 100000));
  app.add_option(
         "--bench-typing", o.bench_typing,
         "Type this many bursts of keys into the editor (no vsync), print the median and 95th percentile from the last "
         "key of a burst to the first frame showing its analysis, beside the model's forward time, and exit")
      ->check(CLI::Range(1, 100000));
  app.add_option("--typing-at", in.typing_at,
                 "Where --bench-typing types: start (every edit changes every token after it), end (writing on; a "
                 "decoder's run continues from the last one) or middle (from the first word past the middle; a "
                 "decoder's run takes the tokens before it from the last one)")
      ->capture_default_str()
      ->check(CLI::IsMember({"start", "end", "middle"}));
  app.add_flag("--typing-at-once", o.typing_at_once,
               "--bench-typing's first burst as the window opens, during the text's first run (by default it waits "
               "until that run is shown, as a user who opens a text and then types)");
  app.add_option("--typing-first-pause", in.typing_first_pause,
                 "Seconds --bench-typing waits after the text as opened is shown before its first burst, as a user "
                 "reads a text before typing (default 0)")
      ->check(CLI::Range(0.0, 600.0));
  app.add_option("--typing-interval", in.typing_interval_ms,
                 "Milliseconds between the scripted keys of --bench-typing (default 80)")
      ->check(CLI::Range(1.0, 10000.0));
  app.add_option("--idle-check", o.idle_check,
                 "Once analysed, stay idle this many seconds, print the frames drawn and the CPU time used, exit")
      ->check(CLI::Range(0.1, 3600.0));
  app.add_option(
         "--quick-run-ms", in.quick_run_ms,
         "When the last run took at most this long, the frame of an edit waits for the edit's own analysis and shows "
         "both at once (0: an edit always shows at once)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 600000.0));
  app.add_flag("--trace-shown", o.trace_shown,
               "Print \"attnscope: shown <unix time> bytes <n> ...\" when a frame first shows the analysis of the "
               "editor's text, "
               "with the worker's forward, analysis and thumbnail milliseconds, its wait from the request to the run's "
               "start and the time from "
               "the run's end to the frame (for latency measured from outside, bench/run_typing_x11.sh)");
  app.add_flag(
      "--full-frames", in.full_frames,
      "Redraw the whole window on every frame, also when a key changed only the editor's side (for comparisons; "
      "without a GPU a partial frame costs about half)");
  app.add_flag(
      "--check-partial-frames", o.check_partial_frames,
      "Draw every partial frame in full too and count the pixels that differ (printed with --bench-typing; for tests)");
}

void add_options(CLI::App& app, attnscope::ui::ExplorerOptions& o, CommandLine& in) {
  add_input_options(app, o, in);
  add_script_options(app, o, in);
  add_window_options(app, o, in);
  add_measure_options(app, o, in);
}

attnscope::ui::ExplorerOptions resolved(attnscope::ui::ExplorerOptions o, const CommandLine& in) {
  using namespace attnscope::ui;
  if (!in.text.empty()) o.text = in.text;
  if (!in.file.empty()) o.text = read_file(in.file);
  if (!in.view.empty()) o.view = view_by_name(in.view);
  for (const std::string& view : in.then_views) o.then_views.push_back(view_by_name(view));
  if (!in.matrix.empty()) o.matrix = attnscope::matrix_by_name(in.matrix);
  if (in.layer >= 0) o.layer = in.layer;
  if (in.head >= 0) o.head = in.head;
  if (in.presentation) o.presentation = true;
  if (in.head_roles) o.head_roles = true;
  o.pair_mask_bytes = static_cast<uint64_t>(in.pair_mask_mib * (1 << 20));
  o.typing_interval = in.typing_interval_ms / 1000;
  o.typing_first_pause = in.typing_first_pause;
  o.typing_at = attnscope::ui::typing_place_named(in.typing_at);
  o.partial_frames = !in.full_frames;
  o.quick_run = in.quick_run_ms / 1000;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "attnscope: explore what the attention heads of transformers do, BERT and the encoders after it and decoders "
      "from GPT-2 to Gemma 3 (Halevi et al., Physica A 2026). Keys: F1 in the window."};
  attnscope::ui::ExplorerOptions o;
  o.examples_dir = ATTNSCOPE_EXAMPLES_DIR;
  CommandLine in;
  add_options(app, o, in);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    const attnscope::ui::ExplorerOptions options = resolved(o, in);
    attnscope::keep_freed_memory_for_reuse();                // every edit allocates the same large tensors again
    attnscope::run_tensor_operations_on_this_thread_only();  // the drawing thread: the model's threads are the worker's
    return attnscope::ui::run_explorer(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnscope: error: %s\n", attnscope::error_message(e).c_str());
    return 1;
  }
}
