#include "pipeline/text_pipeline.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "analysis/word_level.h"
#include "base/error.h"
#include "model/device_fallback.h"
#include "model/forward_progress.h"
#include "pipeline/long_text_lens_pairs.h"
#include "pipeline/long_text_separators.h"
#include "pipeline/role_rows_from_blocks.h"

namespace attnscope {

bool needs_lens_captures(const AnalysisSettings& settings, const ShownMaps& shown) {
  return shown.norm || shown.rollout_of_norm || shown.query_key || settings.separators_from == SeparatorInput::Norm ||
         settings.pairs_from == PairInput::Norm;
}

TextPipeline::TextPipeline(const std::string& model, const ComputeDevice& device, Notice notice)
    : model_(model), notice_(std::move(notice)) {
  run_with_cpu_fallback(
      device, [&](const ComputeDevice& d) { checkpoint_ = Checkpoint::load(model, d); }, notice_);
}

TextPipeline::TextPipeline(std::shared_ptr<const Checkpoint> checkpoint, std::string model, Notice notice)
    : model_(std::move(model)), notice_(std::move(notice)), checkpoint_(std::move(checkpoint)) {}

std::shared_ptr<const Checkpoint> TextPipeline::checkpoint() const {
  std::lock_guard lock(mutex_);
  return checkpoint_;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Tokens the template adds ([CLS], [SEP], a start token) cover no byte of the text.
bool has_text_tokens(const Encoding& encoding) {
  return std::any_of(encoding.tokens.begin(), encoding.tokens.end(), [](const Token& t) { return t.end > t.begin; });
}

// What a text of n tokens keeps (TextPipelineOptions::long_texts); a long text's analysis reads S
// and the maps' column sums (the attention's kept, a lens's or words' made again:
// long_text_separators.h, word_level.h), and pairs from a lens only where their masks fit, in one
// line when not. Its lenses' captures (value norms and Gram matrices) grow as n: the norm-based
// maps are made again with the attention.
void refuse_lens_pairs_that_do_not_fit(size_t n, const AnalysisSettings& settings, const ModelConfig& config) {
  if (pairs_from_a_map(settings.pairs_from))
    require_long_text_lens_pairs_fit(settings.pairs_from, static_cast<int64_t>(n), config.architecture->direction);
}

KeptAttention kept_attention(const Transformer& model, size_t n, const TextPipelineOptions& o) {
  if (!o.long_texts) return KeptAttention::Maps;
  const ModelConfig& config = model.config();
  const KeptAttention kept =
      attention_to_keep(config, static_cast<int64_t>(n), *o.long_texts, capture_memory(model.device().device));
  if (kept != KeptAttention::Maps) refuse_lens_pairs_that_do_not_fit(n, o.settings, config);
  return kept;
}

// The analysis of a run's captures (r.encoding, r.captures): a long text's separators and pairs
// from a lens found in its maps made again by the checkpoint's model.
// `resume`: a continued run's analysis before (AnalysisRun::resume).
void add_analysis(const std::shared_ptr<const Checkpoint>& checkpoint, TextPipelineResult& r,
                  const TextPipelineOptions& o, const TextAnalysis* resume = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  AnalysisRun run{.to_host = o.to_host,
                  .keep_going = o.keep_going,
                  .long_pair_mask_bytes = o.long_pair_mask_bytes,
                  .progress = o.progress,
                  .keeps_pairs_before = resume != nullptr,
                  .pairs_before_step = o.pairs_before_step,
                  .resume = resume};
  if (o.analysis_so_far) run.so_far = [&](const TextAnalysis& so_far) { o.analysis_so_far(r.encoding, so_far); };
  if (!r.captures.attention.defined()) {
    const auto captures = std::make_shared<const TextCaptures>(r.captures);  // its tensors shared, not copied
    const LensMapsOf of{[checkpoint, captures] { return recomputed_attention_blocks(checkpoint->model(), *captures); },
                        captures};
    if (needs_long_text_separator_columns(r.captures, o.settings.separators_from))
      run.separator_columns =
          long_text_separator_columns(of.blocks(), r.captures, o.settings.separators_from, {o.keep_going, o.progress});
    find_long_text_pairs_in_lens(run, of, o.settings.pairs_from);
  }
  r.analysis = analyze_text(r.encoding, r.captures, o.settings, run);
  r.analysis_seconds = seconds_since(start);
}

// The forward's blocks of maps to whoever reads them, with its progress; first to the role rows
// (TextPipelineOptions::role_rows) where `role_rows`.
AttentionBlockSink blocks_read(const TextPipelineOptions& o, bool role_rows, int64_t layers) {
  AttentionBlockSink read = with_forward_progress(o.attention_blocks, o.progress, layers);
  if (!role_rows) return read;
  return [rows = o.role_rows, then = std::move(read)](int64_t layer, const AttentionBlock& block) {
    rows->add(layer, block);
    if (then) then(layer, block);
  };
}

// A run continues from the last one where they share at least this part of its tokens (1/16).
constexpr int64_t kFewestSharedPart = 16;

}  // namespace

ForwardPrefix TextPipeline::prefix_for(const std::vector<int64_t>& ids,
                                       const std::shared_ptr<const Checkpoint>& checkpoint,
                                       const TextPipelineOptions& o) const {
  const LastForward& last = last_forward_;
  if (last.checkpoint != checkpoint || !last.captures.hidden_states.defined()) return {};
  const auto shared = std::mismatch(ids.begin(), ids.end(), last.ids.begin(), last.ids.end()).first - ids.begin();
  // A continued forward costs some 5% more than a whole one (Gemma 3, typed at the start: 10 ms
  // at 128 tokens, 40 at 512), so it pays only where the text shares more than that with the last
  // run; below a sixteenth (a text edited at its start shares its start token alone) it runs whole.
  if (shared * kFewestSharedPart < static_cast<int64_t>(ids.size())) return {};
  ForwardPrefix prefix = continued_from(last.captures, shared);
  if (prefix.column_sums_before.empty() || !o.attention_blocks) return prefix;
  const Transformer& model = checkpoint->model();
  const auto tokens = static_cast<int64_t>(ids.size());
  const int64_t from =
      model.blocks_resumed_from(prefix, 1, tokens, model.tokens_continued(prefix, tokens, 1), o.block_rows);
  if (from > 0 && !(o.blocks_resume && o.blocks_resume(tokens, from)))
    prefix.column_sums_before = {};  // whoever reads the blocks needs every one
  return prefix;
}

// What a continued run tells of its forward: the tokens taken from the last run, the row a long
// text's blocks of maps were made from.
void TextPipeline::note_continued(const std::vector<int64_t>& ids, const Transformer& model, CheckpointRun& run,
                                  TextPipelineResult& r) const {
  const auto n = static_cast<int64_t>(ids.size());
  r.tokens_continued = model.tokens_continued(run.prefix, n, 1);
  if (r.tokens_continued > 0 && run.kept == KeptAttention::QueriesAndKeys)
    r.blocks_from = model.blocks_resumed_from(run.prefix, 1, n, r.tokens_continued, run.block_rows);
  // The run before's captures go now where nothing else holds them (a long text's, kept as the
  // last forward below at once), not when this run returns.
  run.prefix = {};
}

void TextPipeline::keep_as_last_forward(LastForward forward, const TextPipelineOptions& o) {
  last_forward_ = std::move(forward);
  if (o.forward_kept) o.forward_kept(last_forward_.captures.column_sums_before.rows);
}

namespace {

// A run's encoding and captures on words (TextPipelineOptions::settings.words), a long text's maps
// made again for it.
void put_on_words(TextPipelineResult& r, const Transformer& model, const TextPipelineOptions& o) {
  const WordMapsMadeAgain maps{[&model](const TextCaptures& c) { return recomputed_attention_rows(model, c); },
                               o.keep_going, o.progress};
  TextRun words = to_words({std::move(r.encoding), std::move(r.captures)}, maps);
  r.encoding = std::move(words.encoding);
  r.captures = std::move(words.captures);
}

}  // namespace

TextPipelineResult TextPipeline::run(std::string_view text, const TextPipelineOptions& o, IncrementalEncoder* encoder) {
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<const Checkpoint> checkpoint = this->checkpoint();
  TextPipelineResult r;
  const size_t max_length = o.max_length ? o.max_length : checkpoint->default_max_length();
  r.encoding = encoder ? checkpoint->encode(text, max_length, *encoder) : checkpoint->encode(text, max_length);
  if (!has_text_tokens(r.encoding)) throw Error("the text has no word pieces (only white space or control characters)");
  CheckpointRun run;
  run.to_host = o.to_host;
  run.keep_going = o.keep_going;
  run.progress = o.progress;
  run.lenses = o.lens_captures || needs_lens_captures(o.settings);
  run.kept = kept_attention(checkpoint->model(), r.encoding.size(), o);
  if (o.before_forward)
    o.before_forward({&checkpoint->model().config(), static_cast<int64_t>(r.encoding.size()), run.kept, run.lenses});
  const std::vector<int64_t> ids = r.encoding.ids();
  const bool role_rows = o.role_rows && run.kept == KeptAttention::QueriesAndKeys;
  if (role_rows) o.role_rows->start(checkpoint->model(), ids);
  run.attention_blocks = blocks_read(o, role_rows, checkpoint->model().config().num_layers);
  run.block_rows = o.block_rows;
  const bool continues = o.continues && checkpoint->model().config().causal();
  run.layer_inputs = continues;
  run.column_sums_every = o.pairs_before_step;
  if (continues) run.prefix = prefix_for(ids, checkpoint, o);
  const bool predicts = o.next_tokens > 0 && checkpoint->model().config().causal();
  run.last_layer =
      predicts && o.last_layer == LastLayer::HeadOutputsOnly ? LastLayer::HeadOutputsAndLastToken : o.last_layer;
  r.device = run_with_cpu_fallback(
      checkpoint->model().device(),
      [&](const ComputeDevice& d) {
        if (d.device != checkpoint->model().device().device) {  // the CPU takes over, for this text and the next
          checkpoint = Checkpoint::load(model_, d);
          run.prefix = {};
          if (role_rows) o.role_rows->start(checkpoint->model(), ids);
          std::lock_guard lock(mutex_);
          checkpoint_ = checkpoint;
        }
        r.captures = std::move(checkpoint->run({r.encoding}, run).front().captures);
      },
      notice_);
  // This run's forward, for the next to continue from: a long text's at once (whoever reads its
  // blocks keeps what they made now: forward_kept), one whose maps are kept once it is analysed.
  // Continued from a run the explorer abandoned in its analysis, the next held a third run's maps
  // beside those shown and its own, their blocks partly new pages (0.5 s more at 512 tokens).
  std::optional<LastForward> analysed;
  if (continues) {
    note_continued(ids, checkpoint->model(), run, r);
    LastForward forward{ids, r.captures, checkpoint};
    if (run.kept == KeptAttention::Maps)
      analysed = std::move(forward);
    else
      keep_as_last_forward(std::move(forward), o);
  }
  if (predicts) r.next = next_tokens(checkpoint->model(), r.captures, o.next_tokens);
  if (o.settings.words) put_on_words(r, checkpoint->model(), o);
  r.forward_seconds = seconds_since(start);
  if (o.keep_going && !o.keep_going()) throw Cancelled();
  add_analysis(checkpoint, r, o, continues ? &last_analysis_ : nullptr);
  if (continues) {
    if (analysed) keep_as_last_forward(std::move(*analysed), o);
    last_analysis_ = resume_point(r.analysis);
  }
  return r;
}

TextPipelineResult TextPipeline::analyze(Encoding encoding, TextCaptures captures, const TextPipelineOptions& o) const {
  const std::shared_ptr<const Checkpoint> checkpoint = this->checkpoint();
  TextPipelineResult r;
  r.encoding = std::move(encoding);
  r.captures = std::move(captures);
  if (!r.captures.attention.defined())
    refuse_lens_pairs_that_do_not_fit(r.encoding.size(), o.settings, checkpoint->model().config());
  r.device = checkpoint->model().device();
  add_analysis(checkpoint, r, o);
  return r;
}

}  // namespace attnscope
