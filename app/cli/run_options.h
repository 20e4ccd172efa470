#pragma once
// What every command that runs the model takes: model, text, length, device, threads, and the
// analysis settings; and the one way they are turned into a result.
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "analysis/text_analysis.h"
#include "model/capture_plan.h"
#include "model/checkpoint.h"
#include "pipeline/text_pipeline.h"
#include "text_input.h"

namespace attnscope::cli {

struct RunOptions {
  std::string model;
  TextInput input;
  size_t max_length = 0;  // 0: the checkpoint's default
  std::string device = "auto";
  std::string precision = "float32";
  int threads = 0;
  bool lenses = false;  // capture what the lenses need even where the analysis does not (needs_lens_captures)
  // Set by the commands that read no map whole (add_long_text_options): past the plan's length a
  // text keeps what recomputes its maps instead of them.
  std::optional<CapturePlan> long_texts;
  // Such a long text's every pair mask kept (AnalysisRun::long_pair_mask_bytes): what writes a
  // result whole reads them all, once each.
  bool keep_pair_masks = false;
  std::function<void(const PlannedRun&)> before_forward;  // TextPipelineOptions::before_forward
};

struct AnalysisOptions {
  AnalysisSettings settings;
  std::string sentences = "punct";
  std::string segments_from = "last";
  bool no_special = false;
  bool separators_text_only = false;
  bool words = false;
  std::string separators_from = "attention";
  std::string pairs_from = "similarity";
};

// --model, --max-len, --device, --precision, --threads (what every command running the model takes)
void add_model_options(CLI::App& cmd, RunOptions& o);
// the above plus --text / --file
void add_run_options(CLI::App& cmd, RunOptions& o);
// --maps-up-to, --memory-share: when a text is long enough to keep queries and keys, not maps
void add_long_text_options(CLI::App& cmd, RunOptions& o);
// pairs_option: the name(s) of the option choosing the pairs' matrix ("--matrix,--pairs-from" where
// the command shows no other matrix; figure has its own --matrix).
void add_analysis_options(CLI::App& cmd, AnalysisOptions& o, const std::string& pairs_option = "--pairs-from");

struct TextResult {
  std::shared_ptr<const Checkpoint> checkpoint;
  ComputeDevice device;
  std::string text;
  size_t max_length = 0;
  TextRun run;
};

// The heap for a run of `tokens` tokens that keeps `kept`, set before its forward (run_options.cpp).
void tune_heap_for_command(KeptAttention kept, const ModelConfig& config, int64_t tokens);
// Applies --threads and --device/--precision, and loads the model; throws attnscope::Error.
std::shared_ptr<const Checkpoint> load_checkpoint(const RunOptions& o, ComputeDevice& device);
// The settings with --sentences / --segments-from / --no-special applied.
AnalysisSettings analysis_settings(const AnalysisOptions& o);

struct AnalyzedText {
  TextResult result;
  TextAnalysis analysis;
};
// Reads the text, loads the model and runs the text through the core's pipeline (tokens, forward,
// words, the paper's analysis with the command's settings); throws attnscope::Error.
// `loaded`: the checkpoint of run.model already opened (the first of two runs of one model), not
// read again.
AnalyzedText run_and_analyze(const RunOptions& run, const AnalysisOptions& analysis,
                             std::shared_ptr<const Checkpoint> loaded = nullptr);

}  // namespace attnscope::cli
