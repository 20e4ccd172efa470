#include "run_options.h"

#include <ATen/Parallel.h>

#include <cstdio>
#include <iterator>

#include "base/error.h"
#include "corpus/allocator_tuning.h"
#include "progress_line.h"
#include "pipeline/text_pipeline.h"

namespace attnscope::cli {

void add_run_options(CLI::App& cmd, RunOptions& o) {
  add_model_options(cmd, o);
  cmd.add_option("--text", o.input.text, "The text itself");
  cmd.add_option("--file", o.input.file, "A UTF-8 text file to read the text from");
}

void add_long_text_options(CLI::App& cmd, RunOptions& o) {
  CapturePlan& plan = o.long_texts.emplace();
  cmd.add_option("--maps-up-to", plan.maps_up_to,
                 "Keep every attention map of a text of at most this many tokens; a longer one keeps its queries "
                 "and keys (a map is recomputed when needed, to the bit) and its analysis holds no n x n matrix. "
                 "0 (default): keep them while the maps and similarities fit in --memory-share of the memory")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--memory-share", plan.memory_share,
                 "Share of the memory every map and similarity of a text may take: this machine's, or on a GPU the "
                 "less of it and the GPU's (default 0.25)")
      ->check(CLI::Range(0.0, 1.0));
}

void add_model_options(CLI::App& cmd, RunOptions& o) {
  cmd.add_option(
         "--model", o.model,
         "Checkpoint folder (config.json, model.safetensors, and tokenizer.json or vocab.txt), a GGUF file (a "
         "decoder's: SmolLM2, Gemma 3, ...) or a folder holding one, or a model id (bert-base-uncased, org/name) "
         "already in the Hugging Face cache ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub)")
      ->required();
  cmd.add_option("--max-len", o.max_length,
                 "Keep at most N tokens, the special ones ([CLS] and [SEP], or a decoder's start token) included "
                 "(default 128, or the model's positions if fewer)")
      ->check(CLI::Range(2, 1 << 20));
  cmd.add_option("--device", o.device, "auto (CUDA when present), cpu, cuda or cuda:N")->capture_default_str();
  cmd.add_option("--precision", o.precision, "float32, or float16 / bfloat16 on CUDA")->capture_default_str();
  cmd.add_option("--threads", o.threads, "CPU threads for libtorch (default: libtorch's choice)")
      ->check(CLI::Range(1, 1024));
}

void add_analysis_options(CLI::App& cmd, AnalysisOptions& o, const std::string& pairs_option) {
  cmd.add_option("--tau", o.settings.tau, "High-similarity threshold on S / max S")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 1.0));
  cmd.add_option("--tau-sep", o.settings.tau_sep, "Separator threshold on the max-normalised column attention")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 1.0));
  cmd.add_option("--sentences", o.sentences,
                 "Sentences from punctuation (punct) or from the attention segments (segments)")
      ->capture_default_str()
      ->check(CLI::IsMember({"punct", "segments"}));
  cmd.add_option("--segments-from", o.segments_from,
                 "Attention map whose separators cut the segments: last (the last layer's sum), L (layer L's sum) or "
                 "L:H (one head)")
      ->capture_default_str();
  cmd.add_flag("--no-special", o.no_special,
               "Leave [CLS], [SEP] and other special tokens out of the similarity analysis");
  cmd.add_option(
         "--separators-from", o.separators_from,
         "The maps whose column attention finds separators: attention (METHOD.md), norm (norm-based, Kobayashi et al. "
         "2020) or rollout (each layer's, Abnar and Zuidema 2020)")
      ->capture_default_str()
      ->check(CLI::IsMember({"attention", "norm", "rollout"}));
  cmd.add_option(
         pairs_option, o.pairs_from,
         "The matrix whose high elements (>= tau times its largest) are a head's pairs and statistics: similarity (S, "
         "METHOD.md), cosine, attention, norm (norm-based, Kobayashi et al. 2020) or rollout (the layer's, Abnar and "
         "Zuidema 2020); attention, norm and rollout are averaged with their transpose first")
      ->capture_default_str()
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kPairInputNames), std::end(kPairInputNames))));
  cmd.add_flag(
      "--words", o.words,
      "Everything on words instead of word pieces: attention to a word summed over its pieces and averaged over the "
      "querying word's pieces, a word's head output the mean of its pieces' (Clark et al. 2019)");
  cmd.add_flag(
      "--separators-text-only", o.separators_text_only,
      "Look for separators among text tokens only: special tokens are never separators and take no part in the "
      "column maximum (METHOD.md counts them; a last layer that attends mostly to [CLS] then shows the text's own "
      "columns)");
}

namespace {

// Reduced precision is fast on a GPU but not exact; say how far it moves the captures (measured
// by bench/bench_precision against float32, bench/RESULTS.md).
ComputeDevice selected_device(const RunOptions& o) {
  const ComputeDevice device = select_device(o.device, o.precision);
  if (device.dtype == at::kHalf)
    std::fprintf(stderr,
                 "attnscope: float16 moves attention maps by up to about 0.003 and head outputs by up to about 0.005 "
                 "from float32 "
                 "(measured on MiniLM and a BERT-base-sized model); --precision float32 is exact\n");
  if (device.dtype == at::kBFloat16)
    std::fprintf(stderr,
                 "attnscope: bfloat16 moves attention maps by up to about 0.02 and head outputs by up to about 0.04 "
                 "from float32 "
                 "(measured on MiniLM and a BERT-base-sized model); --precision float32 is exact\n");
  return device;
}

// The stage shown while a model is read: a path or a model id as given.
std::string opening_stage(const std::string& model) { return "opening " + model; }

}  // namespace

// A long text's heap as the explorer sets it (tune_heap_for_run): its blocks of rows, made and
// dropped thousands of times, stay in the heap, where a text of a few thousand tokens gains about
// 40% of its time (bench/RESULTS.md, "Long texts"). Not where its queries, keys and head outputs
// take more than an eighth of the machine's memory: the blocks the heap keeps once freed cost a
// few hundred MB there (Gemma 3 at 32,768 tokens, 5.4 GB of them: 7,840 MiB peak with the heap
// kept, over the 8 GB). A text whose maps are kept is run once: glibc's defaults, which
// keep nothing freed (the explorer keeps it for the next edit).
void tune_heap_for_command(KeptAttention kept, const ModelConfig& config, int64_t tokens) {
  const double captures = 4.0 * static_cast<double>(config.num_layers * tokens * config.head_dim()) *
                          static_cast<double>(2 * config.num_heads + config.kv_heads());
  if (kept != KeptAttention::Maps && captures <= static_cast<double>(physical_memory()) / 8) tune_heap_for_run(false);
}

std::shared_ptr<const Checkpoint> load_checkpoint(const RunOptions& o, ComputeDevice& device) {
  if (o.threads > 0) at::set_num_threads(o.threads);
  device = selected_device(o);
  StageProgress progress;  // Gemma 3's file: over a second, most of it its 262,144-piece tokenizer
  progress.begin(opening_stage(o.model));
  return Checkpoint::load(o.model, device);
}

AnalyzedText run_and_analyze(const RunOptions& o, const AnalysisOptions& analysis,
                             std::shared_ptr<const Checkpoint> loaded) {
  TextPipelineOptions options;
  options.settings = analysis_settings(analysis);
  options.lens_captures = o.lenses;
  options.long_texts = o.long_texts;
  options.long_pair_mask_bytes = o.keep_pair_masks ? kEveryPairMask : 0;
  options.before_forward = [&o](const PlannedRun& run) {
    tune_heap_for_command(run.kept, *run.config, run.tokens);
    if (o.before_forward) o.before_forward(run);
  };
  AnalyzedText out;
  TextResult& r = out.result;
  r.text = read_text_input(o.input);
  if (o.threads > 0) at::set_num_threads(o.threads);
  StageProgress progress;  // a long text's forward and scan take minutes
  if (!loaded) progress.begin(opening_stage(o.model));
  const TextPipeline::Notice notice = [](const std::string& line) {
    std::fprintf(stderr, "attnscope-cli: %s\n", line.c_str());
  };
  TextPipeline pipeline =
      loaded ? TextPipeline(std::move(loaded), o.model, notice) : TextPipeline(o.model, selected_device(o), notice);
  r.max_length = options.max_length = o.max_length ? o.max_length : pipeline.checkpoint()->default_max_length();
  options.progress = progress.report();
  TextPipelineResult result = pipeline.run(r.text, options);
  r.checkpoint = pipeline.checkpoint();
  r.device = result.device;
  r.run = {std::move(result.encoding), std::move(result.captures)};
  out.analysis = std::move(result.analysis);
  return out;
}

AnalysisSettings analysis_settings(const AnalysisOptions& o) {
  AnalysisSettings s = o.settings;
  s.include_special = !o.no_special;
  s.separators_text_only = o.separators_text_only;
  s.words = o.words;
  s.separators_from = o.separators_from == "norm"      ? SeparatorInput::Norm
                      : o.separators_from == "rollout" ? SeparatorInput::Rollout
                                                       : SeparatorInput::Attention;
  const std::optional<PairInput> pairs_from = pair_input_by_name(o.pairs_from);
  if (!pairs_from)
    throw Error("--pairs-from \"" + o.pairs_from + "\": expected similarity, cosine, attention, norm or rollout");
  s.pairs_from = *pairs_from;
  s.sentences = o.sentences == "segments" ? SentenceMode::Segments : SentenceMode::Punctuation;
  if (o.segments_from != "last") {
    const auto colon = o.segments_from.find(':');
    try {
      size_t used = 0;
      s.segment_map.layer = std::stoi(o.segments_from.substr(0, colon), &used);
      if (used != (colon == std::string::npos ? o.segments_from.size() : colon)) throw std::invalid_argument("layer");
      if (colon != std::string::npos) s.segment_map.head = std::stoi(o.segments_from.substr(colon + 1));
    } catch (const std::exception&) {
      throw Error("--segments-from \"" + o.segments_from + "\": expected last, a layer number L, or L:H");
    }
  }
  return s;
}

}  // namespace attnscope::cli
