#include "analysis_worker.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

#include "base/error.h"
#include "base/error_message.h"
#include "base/host_memory_pool.h"
#include "corpus/allocator_tuning.h"
#include "figures/overview_thumbnails.h"
#include "figures/text_figures.h"
#include "pipeline/text_head_roles.h"
#include "results/analysis_json.h"
#include "tokenizer/piece_text.h"

namespace attnscope::ui {

AnalyzedTextView AnalysisSnapshot::view() const {
  if (!checkpoint && scores) return analyzed_text_view(encoding, captures, analysis, scores.get());
  return analyzed_text_view(encoding, captures, analysis, checkpoint ? &checkpoint->model() : nullptr);
}

AnalysisWorker::AnalysisWorker(std::string model, std::string device, std::string precision,
                               std::function<void()> notify)
    : notify_(std::move(notify)),
      thread_(&AnalysisWorker::run, this, std::move(model), std::move(device), std::move(precision), nullptr) {}

AnalysisWorker::AnalysisWorker(std::shared_ptr<const Checkpoint> loaded, std::string model,
                               std::function<void()> notify)
    : notify_(std::move(notify)), thread_(&AnalysisWorker::run, this, std::move(model), "", "", std::move(loaded)) {}

AnalysisWorker::AnalysisWorker(OpenResult result, std::function<void()> notify) : notify_(std::move(notify)) {
  status_.reads_result = true;
  thread_ = std::thread(&AnalysisWorker::run_result, this, std::move(result));
}

AnalysisWorker::~AnalysisWorker() {
  stop_flag_ = true;  // a run under way stops at its next layer
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

uint64_t AnalysisWorker::submit(AnalysisRequest request) {
  // Serials are unique across workers, so views keyed by them notice a change of model.
  static std::atomic<uint64_t> next_serial{0};
  const uint64_t serial = ++next_serial;
  {
    std::lock_guard lock(mutex_);
    pending_ = std::move(request);
    pending_serial_ = serial;
    pending_since_ = std::chrono::steady_clock::now();
    newest_ = serial;
    busy_ = true;
  }
  wake_.notify_all();
  return serial;
}

void AnalysisWorker::wait_for_start(uint64_t serial, std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  started_cv_.wait_for(lock, limit, [&] { return started_ >= serial || stop_; });
}

std::shared_ptr<const AnalysisSnapshot> AnalysisWorker::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

std::shared_ptr<const AnalysisSnapshot> AnalysisWorker::latest_good() const {
  std::lock_guard lock(mutex_);
  return latest_good_;
}

ModelStatus AnalysisWorker::model_status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::shared_ptr<const Checkpoint> AnalysisWorker::checkpoint() const {
  std::lock_guard lock(mutex_);
  return pipeline_ ? pipeline_->checkpoint() : nullptr;
}

void AnalysisWorker::run(std::string model, std::string device, std::string precision,
                         std::shared_ptr<const Checkpoint> loaded) {
  ModelStatus status;
  // Out of GPU memory (loading or running): the CPU takes over, for this text and the next, and the window says so.
  const auto notice = [this](const std::string& text) {
    std::lock_guard lock(mutex_);
    status_.notice = text;
    status_.device = ComputeDevice{}.describe();
  };
  try {
    auto pipeline = loaded ? std::make_unique<TextPipeline>(std::move(loaded), model, notice)
                           : std::make_unique<TextPipeline>(model, select_device(device, precision), notice);
    const auto checkpoint = pipeline->checkpoint();
    // A model id is shown as the id (its cache folder is named after a commit).
    status.loaded = true;
    status.name = std::filesystem::is_directory(model) ? std::filesystem::path(model).filename().string() : model;
    status.device = checkpoint->model().device().describe();
    status.layers = static_cast<int>(checkpoint->model().config().num_layers);
    status.heads = static_cast<int>(checkpoint->model().config().num_heads);
    std::lock_guard lock(mutex_);
    pipeline_ = std::move(pipeline);
  } catch (const std::exception& e) {
    status.error = error_message(e);
  }
  serve(std::move(status));
}

// The file is read and its analysis put together here, off the UI thread (seconds for a long text's
// gigabytes); the status then carries its text and settings for the window to take (ModelStatus::result).
void AnalysisWorker::run_result(OpenResult result) {
  const std::string& path = result.path;
  ModelStatus status;
  status.reads_result = true;
  try {
    auto opened = std::make_shared<OpenedTextRun>(open_text_run(
        path, [this] { return !stop_flag_.load(); }, result.pair_mask_bytes));
    const TextCaptures& c = opened->file.run.captures;
    if (!c.attention.defined()) return_freed_memory();  // a long text's, as run_model's before_forward
    status.loaded = true;
    status.name = std::filesystem::path(path).filename().string();
    status.device = "a result file, without its model";
    status.layers = static_cast<int>(c.num_layers);
    status.heads = static_cast<int>(c.num_heads);
    status.result = ResultShown{opened->file.text, opened->analysis.settings, opened->file.max_length};
    first_analysis_ = std::move(opened->analysis);  // the first answer's (TextAnalysis is large: never two copies)
    std::lock_guard lock(mutex_);
    opened_ = std::move(opened);
  } catch (const Cancelled&) {
    return;  // the worker is being destroyed
  } catch (const std::exception& e) {
    status.error = error_message(e);
  }
  serve(std::move(status));
}

void AnalysisWorker::serve(ModelStatus status) {
  {
    std::lock_guard lock(mutex_);
    status.notice = status_.notice;  // the CPU took over while loading
    status_ = status;
    busy_ = pending_.has_value() && status.loaded;
  }
  if (notify_) notify_();
  if (!status.loaded) return;
  for (;;) {
    AnalysisRequest request;
    uint64_t serial;
    std::chrono::steady_clock::time_point asked;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      request = std::move(*pending_);
      serial = pending_serial_;
      asked = pending_since_;
      pending_.reset();
      started_ = serial;
    }
    started_cv_.notify_all();
    answer(request, serial, asked);
  }
}

namespace {

// The window's sliders hold the thresholds as float: a file's 0.3 comes back as 0.30000001.
bool same_settings(const AnalysisSettings& a, AnalysisSettings b) {
  constexpr double kFloatRounding = 1e-6;
  if (std::abs(a.tau - b.tau) <= kFloatRounding) b.tau = a.tau;
  if (std::abs(a.tau_sep - b.tau_sep) <= kFloatRounding) b.tau_sep = a.tau_sep;
  return settings_to_json(a) == settings_to_json(b);
}

// Failing here costs nothing: the snapshot then has no atlas, and the overview makes its
// thumbnails itself and says why it can't. A newer request stops it (a long text's rollout takes
// minutes).
void colour_grid(AnalysisSnapshot& snapshot, const FigureOptions& options, const LongTextThumbnails& long_text) {
  try {
    snapshot.grid = grid_atlas(snapshot.view(), options, long_text);
    snapshot.grid_options = options;
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception&) {
  }
}

}  // namespace

const TextRoleRows* AnalysisWorker::role_rows_before(const std::shared_ptr<const Checkpoint>& checkpoint) const {
  return role_rows_of_ == checkpoint ? &role_rows_ : nullptr;
}

// The text's head roles beside its analysis, induction from the probe run once per checkpoint.
void AnalysisWorker::add_head_roles(AnalysisSnapshot& s, uint64_t serial, RoleRowsFromBlocks* from_blocks) {
  if (s.analysis.settings.words) {
    s.roles_note = "Head roles are read on word pieces: turn off \"words, not word pieces\" to see them.";
    return;
  }
  if (opened_) {  // a result file's, as written
    s.roles = opened_->roles;
    if (!s.roles) s.roles_note = "This result file holds no head roles (analyze writes them on word pieces).";
    return;
  }
  const auto checkpoint = pipeline_->checkpoint();
  TextRoleRows kept;
  HeadRoleScores roles = text_head_roles(*checkpoint, {s.encoding, s.captures},
                                         {.induction = false,
                                          .progress = stage_progress(serial),
                                          .keep_going = keep_going(serial),
                                          .keep = &kept,
                                          .resume = role_rows_before(checkpoint),
                                          .from_blocks = from_blocks});
  role_rows_ = std::move(kept);
  role_rows_of_ = checkpoint;
  if (induction_of_ != checkpoint) {
    induction_of_ = checkpoint;
    induction_.reset();
    induction_error_.clear();
    try {
      induction_ = probe_induction(*checkpoint);
    } catch (const Error& e) {
      induction_error_ = "Induction is not scored: " + error_message(e) + ".";
    }
  }
  if (induction_) take_induction(roles, *induction_);
  s.roles_note = induction_error_;
  s.roles = std::move(roles);
}

RunProgress AnalysisWorker::progress() const {
  std::lock_guard lock(mutex_);
  return progress_;
}

void AnalysisWorker::report(RunProgress progress) {
  {
    std::lock_guard lock(mutex_);
    progress_ = std::move(progress);
  }
  if (notify_) notify_();  // the window, waiting for events, draws the layer done
}

ProgressReport AnalysisWorker::stage_progress(uint64_t serial) {
  return [this, serial](std::string_view stage, double fraction) {
    if (stage == "model") return;  // the forward's layers: block_sink, with the overview so far
    if (fraction < 0) return;      // a stage of unknown share: the bar keeps the last one's
    {
      std::lock_guard lock(mutex_);
      if (progress_.serial != serial) return;  // a short text's run: too quick for a bar
      progress_.stage = stage;
      progress_.fraction = fraction;
    }
    if (notify_) notify_();
  };
}

std::function<void(const Encoding&, const TextAnalysis&)> AnalysisWorker::analysis_so_far(uint64_t serial) {
  return [this, serial](const Encoding& encoding, const TextAnalysis& analysis) {
    auto s = std::make_shared<AnalysisSnapshot>();
    s->serial = serial;
    s->encoding = encoding;
    s->analysis = analysis;
    {
      std::lock_guard lock(mutex_);
      if (progress_.serial != serial) return;  // a short text's run: over before it would be drawn
      progress_.so_far = std::move(s);
    }
    if (notify_) notify_();
  };
}

// Only a long text's forward hands out blocks (a short one keeps its maps): the pooler, made here
// when the overview of attention is shown, allocates nothing before the first block. Its blocks
// are of pieces: a run on words pools its word maps after the forward instead.
AttentionBlockSink AnalysisWorker::block_sink(const AnalysisRequest& request, uint64_t serial,
                                              std::optional<OverviewPooler>& pooler) {
  const ModelConfig& config = pipeline_->checkpoint()->model().config();
  const int layers = static_cast<int>(config.num_layers);
  if (request.grid && OverviewPooler::pools(*request.grid) && !request.settings.words)
    pooler.emplace(config.num_layers, config.num_heads, kGridThumbnailCells, pooled_before_);
  return [this, &request, &pooler, serial, layers](int64_t layer, const AttentionBlock& block) {
    if (pooler) pooler->add(layer, block);
    if (block.rows.first + block.rows.count < block.n) return;  // the layer goes on
    RunProgress p{serial, static_cast<int>(layer) + 1, layers, nullptr, {}};
    if (pooler) {
      p.overview = std::make_shared<const ThumbnailAtlas>(pooled_atlas(*pooler, *request.grid));
      p.overview_options = *request.grid;
    }
    report(std::move(p));
  };
}

ForwardAsked forward_asked(const AnalysisRequest& request) {
  return {.max_length = request.max_length,
          .lenses = request.lenses || needs_lens_captures(request.settings),
          .words = request.settings.words,
          .next_tokens = request.next_tokens,
          .long_texts = request.long_texts};
}

bool reuses_forward(const ForwardAsked& shown, const ForwardAsked& asked) {
  return shown.max_length == asked.max_length && (shown.lenses || !asked.lenses) && shown.words == asked.words &&
         shown.next_tokens == asked.next_tokens && shown.long_texts == asked.long_texts;
}

// Only on the CPU: a GPU's forward and analysis are quicker than the analysis of the host's copy.
bool AnalysisWorker::analyze_shown(const AnalysisRequest& request, uint64_t serial, AnalysisSnapshot& s) {
  const auto shown = latest_good();
  const auto checkpoint = pipeline_->checkpoint();
  if (!shown || shown->text != request.text || shown->checkpoint != checkpoint ||
      !checkpoint->model().device().device.is_cpu() || !reuses_forward(shown->forward, s.forward))
    return false;
  const int layers = static_cast<int>(shown->analysis.num_layers);
  if (!shown->captures.attention.defined()) report({serial, layers, layers, nullptr, {}});  // a bar for its scan
  TextPipelineOptions options;
  options.settings = request.settings;
  options.long_pair_mask_bytes = request.pair_mask_bytes;
  options.keep_going = keep_going(serial);
  options.progress = stage_progress(serial);
  options.analysis_so_far = analysis_so_far(serial);
  TextPipelineResult r = pipeline_->analyze(shown->encoding, shown->captures, options);
  s.checkpoint = checkpoint;
  s.encoding = std::move(r.encoding);
  s.captures = std::move(r.captures);
  s.analysis = std::move(r.analysis);
  s.analysis_seconds = r.analysis_seconds;
  s.next = shown->next;
  s.forward = shown->forward;  // its lenses' captures with it
  s.forward_reused = true;
  if (shown->roles) {  // read from the captures alone
    s.roles = shown->roles;
    s.roles_note = shown->roles_note;
  }
  // The thumbnails read the captures and the options, never the analysis's settings.
  if (request.grid && shown->grid_options &&
      grid_thumbnails_key(*shown->grid_options) == grid_thumbnails_key(*request.grid)) {
    s.grid = shown->grid;
    s.grid_options = request.grid;
  }
  return true;
}

// The pipeline's run of the request's text: the forward (its blocks pooled into the overview when
// it is shown, `pooler`) and the analysis.
void AnalysisWorker::run_model(const AnalysisRequest& request, uint64_t serial, AnalysisSnapshot& s,
                               std::optional<OverviewPooler>& pooler, std::optional<RoleRowsFromBlocks>& role_rows) {
  TextPipelineOptions options;
  options.max_length = request.max_length;
  options.settings = request.settings;
  options.lens_captures = request.lenses;
  options.next_tokens = request.next_tokens;
  options.keep_going = keep_going(serial);
  options.long_texts = request.long_texts;
  options.long_pair_mask_bytes = request.pair_mask_bytes;
  options.block_rows = request.block_rows;
  options.attention_blocks = block_sink(request, serial, pooler);
  if (request.head_roles && !request.settings.words) {
    role_rows.emplace(role_rows_before(pipeline_->checkpoint()));
    options.role_rows = &*role_rows;
  }
  options.progress = stage_progress(serial);
  options.analysis_so_far = analysis_so_far(serial);
  options.continues = true;
  // Nothing pooled, or the pooler picks up where the run continued from left off.
  options.blocks_resume = [this, &pooler](int64_t tokens, int64_t row) {
    return !pooler || (pooled_before_ && pooled_before_->resumes(tokens, row, kGridThumbnailCells));
  };
  options.forward_kept = [this, &pooler](const std::vector<int64_t>& rows) {
    pooled_before_ = pooler ? pooler->resume_point(rows) : nullptr;
  };
  // The heap as the text wants it (the window starts keeping freed memory, for typing on a short text).
  options.before_forward = [](const PlannedRun& run) { tune_heap_for_run(run.kept == KeptAttention::Maps); };
  TextPipelineResult r = pipeline_->run(request.text, options, &encoder_);
  const Tokenizer& tokenizer = pipeline_->checkpoint()->tokenizer();
  for (const NextToken& t : r.next) {
    const std::string piece = tokenizer.piece(t.id);
    s.next.push_back({readable_piece(piece), written_piece(piece), t.probability});
  }
  s.checkpoint = pipeline_->checkpoint();
  s.encoding = std::move(r.encoding);
  s.captures = std::move(r.captures);
  s.analysis = std::move(r.analysis);
  s.forward_seconds = r.forward_seconds;
  s.tokens_continued = r.tokens_continued;
  s.blocks_from = r.blocks_from;
  s.analysis_seconds = r.analysis_seconds;
}

// A result file's text, as read, its analysis made again only when the settings asked are not
// those last shown (the first answer takes the analysis made on opening, later ones copy the last
// shown). Its text cannot change: an edit has no model to run it.
void AnalysisWorker::take_result(const AnalysisRequest& request, uint64_t serial, AnalysisSnapshot& s) {
  const OpenedTextRun& o = *opened_;
  if (request.text != o.file.text)
    throw Error(
        "this text comes from a result file, without its model: an edit needs a model to analyse it (choose "
        "one with Model...)");
  if (request.settings.words)
    throw Error("words, not word pieces, need the model's tokenizer, which a result file does not hold");
  s.encoding = o.file.run.encoding;
  s.captures = o.file.run.captures;
  s.scores = o.scores;
  const auto start = std::chrono::steady_clock::now();
  const auto shown = latest_good();
  if (first_analysis_ && same_settings(first_analysis_->settings, request.settings)) {
    s.analysis = std::move(*first_analysis_);
    first_analysis_.reset();
  } else if (shown && same_settings(shown->analysis.settings, request.settings)) {
    s.analysis = shown->analysis;
  } else {
    s.analysis =
        analyze_text(s.encoding, s.captures, request.settings,
                     {.keep_going = keep_going(serial),
                      .long_pair_mask_bytes = request.pair_mask_bytes,
                      .separator_columns = separator_columns_made_again(o, request.settings, keep_going(serial))});
  }
  s.analysis_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void AnalysisWorker::answer(const AnalysisRequest& request, uint64_t serial,
                            std::chrono::steady_clock::time_point asked) {
  auto snapshot = std::make_shared<AnalysisSnapshot>();
  snapshot->serial = serial;
  snapshot->text = request.text;
  const auto start = std::chrono::steady_clock::now();
  const auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  snapshot->waited_seconds = std::chrono::duration<double>(start - asked).count();
  try {
    std::optional<OverviewPooler> pooler;
    std::optional<RoleRowsFromBlocks> role_rows;
    snapshot->forward = forward_asked(request);
    const uint64_t pool_mark = host_tensors_mark();
    if (opened_) {
      take_result(request, serial, *snapshot);
    } else if (!analyze_shown(request, serial, *snapshot)) {
      prepare_since_ = pool_mark;
      run_model(request, serial, *snapshot, pooler, role_rows);
    }
    if (request.head_roles && !snapshot->roles) add_head_roles(*snapshot, serial, role_rows ? &*role_rows : nullptr);
    if (request.grid && !snapshot->grid_options) {
      const auto grid_start = std::chrono::steady_clock::now();
      colour_grid(*snapshot, *request.grid,
                  {.pooled = pooler ? &*pooler : nullptr,
                   .progress = stage_progress(serial),
                   .keep_going = keep_going(serial)});
      snapshot->grid_seconds = since(grid_start);
    }
  } catch (const Cancelled&) {
    ++abandoned_;
    // A result file's analysis taken by this answer is kept for the next: made again it is a scan of every S.
    if (opened_ && snapshot->analysis.num_layers > 0) first_analysis_ = std::move(snapshot->analysis);
    std::lock_guard lock(mutex_);
    progress_ = {};
    busy_ = pending_.has_value();
    return;  // a newer request is waiting (or the worker is stopping): nothing to show for this one
  } catch (const std::exception& e) {
    snapshot->error = error_message(e);
  }
  snapshot->finished = std::chrono::steady_clock::now();
  snapshot->seconds = std::chrono::duration<double>(snapshot->finished - start).count();
  std::weak_ptr<const AnalysisSnapshot> shown_before;
  {
    std::lock_guard lock(mutex_);
    if (snapshot->error.empty()) shown_before = latest_good_;
    latest_ = snapshot;
    if (snapshot->error.empty()) latest_good_ = snapshot;
    progress_ = {};
    busy_ = pending_.has_value();
  }
  if (notify_) notify_();
  if (snapshot->error.empty()) make_ready_for_next_edit(shown_before);
}

void AnalysisWorker::make_ready_for_next_edit(const std::weak_ptr<const AnalysisSnapshot>& shown_before) {
  using namespace std::chrono_literals;
  std::unique_lock lock(mutex_);
  const auto asked = [this] { return stop_ || pending_.has_value(); };
  // The window lets the snapshot shown before go at its next frame; one that holds it longer
  // (a second of frames) keeps its blocks from the pool, and nothing is made.
  for (int look = 0; !shown_before.expired(); ++look)
    if (look == 100 || wake_.wait_for(lock, 10ms, asked)) return;
  if (asked()) return;
  lock.unlock();
  prepare_host_tensors_like_held(prepare_since_, [this, asked] {
    std::lock_guard held(mutex_);
    return !asked();
  });
}

}  // namespace attnscope::ui
