#pragma once
// Runs the core's text pipeline (pipeline/text_pipeline.h) off the UI thread: the worker only
// threads it. It loads the checkpoint, then takes requests (captured by value). The newest request
// always wins: those that arrive while it is busy replace each other, and a run made stale by a
// newer request is abandoned at its next check (between layers, between the 2 ms slices of their
// products and between the analysis's stages), so the views follow typing as fast as the model allows. Each result is
// an immutable snapshot the UI picks up; `notify` (called on the worker thread) tells the UI one is there, so an idle
// window can sleep until then.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "analysis/text_analysis.h"
#include "figures/figure_options.h"
#include "figures/overview_pooler.h"
#include "figures/text_matrices.h"
#include "figures/thumbnail_atlas.h"
#include "model/capture_plan.h"
#include "model/checkpoint.h"
#include "model/device.h"
#include "analysis/head_roles.h"
#include "pipeline/role_rows_from_blocks.h"
#include "pipeline/text_head_roles.h"
#include "pipeline/text_pipeline.h"
#include "results/opened_text_run.h"

namespace attnscope::ui {

struct AnalysisRequest {
  std::string text;
  AnalysisSettings settings;
  size_t max_length = 0;  // 0: the model's default
  // Capture what the lenses need for what is shown (needs_lens_captures), beyond the analysis's own needs.
  bool lenses = false;
  // The overview is shown with these options: its thumbnails are coloured here, with the worker's
  // threads, so that the frame showing the answer only uploads them.
  std::optional<FigureOptions> grid;
  int next_tokens = 5;      // a decoder's most likely next tokens to show (none for an encoder)
  bool head_roles = false;  // the overview's role grid is shown: the text's head roles too
  // A text whose maps would not fit keeps its queries and keys instead (the views make its maps
  // again, on words from its pieces'); pairs from a lens whose maps would not fit whole one at a
  // time are then refused in one line.
  CapturePlan long_texts = {};
  // Such a text's pair masks kept up to this many bytes together, the heads that fit in order
  // (AnalysisRun::long_pair_mask_bytes; the window's: ExplorerOptions::pair_mask_bytes).
  uint64_t pair_mask_bytes = 0;
  int64_t block_rows = 0;  // such a text's query rows per block of maps (TextPipelineOptions); 0: the forward's
};

// A next token as the text panel offers it: its piece as people read it, the text it would add,
// its probability.
struct NextPiece {
  std::string shown, written;
  double probability = 0;
};

// What a request asks of the forward (its text aside). A request of the same text that asks what
// the shown snapshot's forward gave (reuses_forward) changes the analysis alone: that is all that
// is made again (a long text's forward takes a minute at 8,192 tokens).
struct ForwardAsked {
  size_t max_length = 0;
  bool lenses = false;  // the lenses' captures (the request's own, or its settings' needs_lens_captures)
  bool words = false;   // captures merged to words
  int next_tokens = 0;
  CapturePlan long_texts;
};
ForwardAsked forward_asked(const AnalysisRequest& request);
// Whether a forward asked `shown` gives what `asked` needs: the same but for lenses taken and not needed.
bool reuses_forward(const ForwardAsked& shown, const ForwardAsked& asked);

struct AnalysisSnapshot {
  uint64_t serial = 0;  // of the request it answers
  std::string text;
  Encoding encoding;
  TextCaptures captures;                             // on the host; a long text's without maps (model/capture_plan.h)
  TextAnalysis analysis;                             // on the host
  std::shared_ptr<const Checkpoint> checkpoint;      // the model that ran it: a long text's maps are made again by it
  std::shared_ptr<const AttentionScores> scores;     // without a model (a result file's): what makes them again
  std::vector<NextPiece> next;                       // a decoder's, most likely first
  std::optional<HeadRoleScores> roles;               // when asked for (on word pieces only)
  std::string roles_note;                            // why there are none, or why induction is missing
  double seconds = 0;                                // model + analysis (+ thumbnails)
  double forward_seconds = 0, analysis_seconds = 0;  // the two parts of it
  std::optional<FigureOptions> grid_options;         // set: `grid` holds the overview's thumbnails with these options
  ThumbnailAtlas grid;
  double grid_seconds = 0;    // colouring it, after the analysis
  double waited_seconds = 0;  // from the request to the start of its run (a stale run still stopping)
  std::chrono::steady_clock::time_point finished;  // when it was ready to be shown
  std::string error;            // non-empty: this request failed (the previous good snapshot stays shown)
  ForwardAsked forward;         // what its forward was asked
  bool forward_reused = false;  // the forward of the snapshot shown before, analysed with other settings
  // A decoder's leading tokens whose layers the forward took from the run before (the text typed
  // on at its end: TextPipelineOptions::continues).
  int64_t tokens_continued = 0;
  int64_t blocks_from = 0;  // a long text's: its blocks of maps made from this row on (TextPipelineResult)

  // The text as figures read it: a long text's maps made again block by block by its model. One
  // view per thread (it keeps the last layer's queries and keys laid out for the products).
  AnalyzedTextView view() const;
};

// How far the run under way has come: a long text's forward (its maps made in blocks, a layer
// taking seconds at 8,192 tokens, the whole run minutes) reports each layer as it ends, then its
// analysis each group of heads scanned for pairs and each layer's head roles; a short text's run
// is over before a bar would help, and reports nothing.
struct RunProgress {
  uint64_t serial = 0;  // the request being run; 0: nothing reported
  int layers_done = 0, layers = 0;
  // The overview so far when it is shown (figures/overview_thumbnails.h: pooled_atlas), with the
  // options it was coloured with.
  std::shared_ptr<const ThumbnailAtlas> overview;
  FigureOptions overview_options;
  // Once the forward is done: the analysis's stage under way ("pairs", "head roles": the core's
  // ProgressReport stages) and its share done.
  std::string stage = {};
  double fraction = 0;
  // During its scan for pairs: the analysis so far (TextAnalysis::heads_scanned), with the text's
  // encoding, for the Statistics view to show the heads scanned before the rest are.
  std::shared_ptr<const AnalysisSnapshot> so_far = {};
};

// A snapshot's serial, 0 for none: what the UI compares to notice a new one (a pointer could be a
// new snapshot at the address of one since freed).
template <class Snapshot>
uint64_t serial_of(const std::shared_ptr<const Snapshot>& s) {
  return s ? s->serial : 0;
}

// A result file opened instead of a model: what the window takes from it once it is read.
struct ResultShown {
  std::string text;
  AnalysisSettings settings;
  size_t max_length = 0;
};

struct ModelStatus {
  bool loaded = false;                // the model, or the result file, is ready
  bool reads_result = false;          // the worker shows a result file (from the start, while it is read)
  std::optional<ResultShown> result;  // once read: the result file's (ModelStatus::name is the file's)
  std::string error;                  // the model could not be loaded
  std::string name;                   // folder name
  std::string device;                 // e.g. "cpu float32"
  std::string notice;                 // e.g. the GPU ran out of memory and the CPU took over
  int layers = 0, heads = 0;
};

class AnalysisWorker {
 public:
  AnalysisWorker(std::string model, std::string device, std::string precision, std::function<void()> notify = {});
  // A second worker on a model another worker has loaded (compare mode, two texts): no second copy.
  AnalysisWorker(std::shared_ptr<const Checkpoint> loaded, std::string model, std::function<void()> notify = {});
  // Shows a result file of `attnscope-cli analyze` without its model (results/opened_text_run.h):
  // requests of its text are answered from the file (its analysis made again when other settings
  // are asked); an edit is answered with an error, the file's analysis staying shown.
  struct OpenResult {
    std::string path;
    uint64_t pair_mask_bytes = 0;  // its long text's pair masks kept (AnalysisRequest::pair_mask_bytes)
  };
  explicit AnalysisWorker(OpenResult result, std::function<void()> notify = {});
  ~AnalysisWorker();
  AnalysisWorker(const AnalysisWorker&) = delete;
  AnalysisWorker& operator=(const AnalysisWorker&) = delete;

  uint64_t submit(AnalysisRequest request);  // returns the request's serial
  // Waits at most `limit` for the run of request `serial` (or a newer one) to start: a stale run
  // under way first reaches its next check.
  void wait_for_start(uint64_t serial, std::chrono::milliseconds limit);
  // A request is coming (the caller submits it shortly): the run under way is abandoned now, at its
  // next check, not when the request arrives.
  void supersede() { newest_ = 0; }
  std::shared_ptr<const AnalysisSnapshot> latest() const;  // the newest answer, good or failed
  std::shared_ptr<const AnalysisSnapshot> latest_good() const;
  bool busy() const { return busy_; }
  RunProgress progress() const;                 // of the run under way; `notify` is called as it changes
  int abandoned() const { return abandoned_; }  // runs stopped because a newer request came
  ModelStatus model_status() const;
  std::shared_ptr<const Checkpoint> checkpoint() const;  // null until loaded

 private:
  void run(std::string model, std::string device, std::string precision, std::shared_ptr<const Checkpoint> loaded);
  void run_result(OpenResult result);
  void serve(ModelStatus status);  // publishes the status, then answers requests until stopped
  void answer(const AnalysisRequest& request, uint64_t serial, std::chrono::steady_clock::time_point asked);
  // After an answer, once the window has let `shown_before` go and until a request comes: blocks
  // like those its snapshot holds, handed since prepare_since_, made ready with their pages for the
  // next run, which allocates them again while the snapshot is shown (base/host_memory_pool.h:
  // prepare_like_held). Without them the first edit after a text was opened faulted them all in
  // (SmolLM2 at 512 tokens: 0.5 to 5 s more than the next edits'); from the second edit on, the
  // blocks of the snapshot shown before serve, grown now where they have too little room for a
  // text a few tokens longer (typed on at its end), not by the next run.
  void make_ready_for_next_edit(const std::weak_ptr<const AnalysisSnapshot>& shown_before);
  // `role_rows`: made where the head roles are asked on word pieces, for a long text's forward to
  // add its blocks of maps to (TextPipelineOptions::role_rows).
  void run_model(const AnalysisRequest& request, uint64_t serial, AnalysisSnapshot& s,
                 std::optional<OverviewPooler>& pooler, std::optional<RoleRowsFromBlocks>& role_rows);
  // The shown snapshot's forward analysed with the request's settings, when it gives what the
  // request asks (reuses_forward): with it its next tokens, head roles and overview.
  bool analyze_shown(const AnalysisRequest& request, uint64_t serial, AnalysisSnapshot& s);
  void take_result(const AnalysisRequest& request, uint64_t serial, AnalysisSnapshot& s);
  // The last text's role rows where `checkpoint` made them (TextHeadRolesOptions::resume), else null.
  const TextRoleRows* role_rows_before(const std::shared_ptr<const Checkpoint>& checkpoint) const;
  // `from_blocks`: the rows the forward's blocks gave, where it made them (TextHeadRolesOptions).
  void add_head_roles(AnalysisSnapshot& snapshot, uint64_t serial, RoleRowsFromBlocks* from_blocks = nullptr);
  // What the forward hands its blocks of maps to: the overview's pooler, when the overview is
  // shown (its thumbnails then ready with the forward), and the progress, each layer as it ends.
  AttentionBlockSink block_sink(const AnalysisRequest& request, uint64_t serial, std::optional<OverviewPooler>& pooler);
  void report(RunProgress progress);
  // The analysis's progress (TextPipelineOptions::progress), the forward's layers left to block_sink.
  ProgressReport stage_progress(uint64_t serial);
  // The analysis so far of a long text's scan (TextPipelineOptions::analysis_so_far), into the progress.
  std::function<void(const Encoding&, const TextAnalysis&)> analysis_so_far(uint64_t serial);
  bool stale(uint64_t serial) const { return newest_ != serial || stop_flag_; }
  // What the core's long stages ask between their steps: whether request `serial` is still wanted.
  KeepGoing keep_going(uint64_t serial) const {
    return [this, serial] { return !stale(serial); };
  }

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<AnalysisRequest> pending_;
  uint64_t pending_serial_ = 0;
  std::chrono::steady_clock::time_point pending_since_;
  bool stop_ = false;
  std::atomic<bool> busy_{true};
  std::atomic<uint64_t> newest_{0};     // the serial of the newest request
  std::atomic<bool> stop_flag_{false};  // the worker is being destroyed
  std::atomic<int> abandoned_{0};
  uint64_t started_ = 0;  // the serial of the last run started (guarded by mutex_)
  std::condition_variable started_cv_;
  std::function<void()> notify_;
  std::shared_ptr<const AnalysisSnapshot> latest_, latest_good_;
  RunProgress progress_;                         // guarded by mutex_
  std::unique_ptr<TextPipeline> pipeline_;       // set once, under mutex_, when the model is loaded
  std::shared_ptr<const OpenedTextRun> opened_;  // instead, a result file's, set once when it is read
  std::optional<TextAnalysis> first_analysis_;   // its analysis until the first answer takes it (worker thread)
  IncrementalEncoder encoder_;  // the worker thread's own: the pieces of the last text, for the next edit
  // The pool's mark (base/host_memory_pool.h) at the start of the last run of the model (the worker
  // thread's own; 0: none yet): an answer that reuses the shown forward holds that run's captures.
  uint64_t prepare_since_ = 0;
  // Where the overview of the run the pipeline continues from stood as its resumable blocks came
  // (the worker thread's own): a long text typed on at its end or edited in its middle pools on
  // from one of them, its forward making the blocks from there on alone
  // (TextPipelineOptions::blocks_resume). Null where that run pooled no overview.
  std::shared_ptr<const OverviewPooler::ResumePoint> pooled_before_;
  // Induction scores come from a probe that does not depend on the text: run once per checkpoint
  // (the worker thread's own, like encoder_).
  std::shared_ptr<const Checkpoint> induction_of_;  // held: a new checkpoint never looks like the old
  std::optional<HeadRoleScores> induction_;
  std::string induction_error_;
  // A long text's roles' rows, for the next text's roles to take those of the tokens they share
  // (a decoder's: TextHeadRolesOptions::resume), and the checkpoint whose model made them (held,
  // as induction_of_). The worker thread's own.
  TextRoleRows role_rows_;
  std::shared_ptr<const Checkpoint> role_rows_of_;
  ModelStatus status_;
  std::thread thread_;
};

}  // namespace attnscope::ui
