#pragma once
// One text through the model and the paper's analysis: encode, forward (the CPU taking over when
// the GPU runs out of memory), words, analysis. Every program runs a text through this one path:
// the explorer's worker threads it, the command line prints what it returns, the benchmarks time it.
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/progress.h"
#include "analysis/text_analysis.h"
#include "model/capture_plan.h"
#include "model/checkpoint.h"
#include "model/next_tokens.h"

namespace attnscope {

class RoleRowsFromBlocks;

// What is shown or drawn beside the analysis, as far as the captures are concerned.
struct ShownMaps {
  bool norm = false;             // a norm-based map (Kobayashi et al. 2020)
  bool rollout_of_norm = false;  // rollout built on the norm-based maps
  bool query_key = false;        // the query/key view of a head
};

// The one rule for the lenses' captures (value norms and Gram matrices, queries, keys): they cost
// a fifth to a third of the forward at 128 tokens, so they are taken only when the analysis
// (separators or pairs from the norm-based maps) or something shown reads them.
bool needs_lens_captures(const AnalysisSettings& settings, const ShownMaps& shown = {});

// What a run keeps, known once its text is encoded and before its forward.
struct PlannedRun {
  const ModelConfig* config = nullptr;
  int64_t tokens = 0;  // word pieces (a run on words keeps fewer)
  KeptAttention kept = KeptAttention::Maps;
  bool lenses = false;  // the lenses' captures taken
};

struct TextPipelineOptions {
  size_t max_length = 0;       // 0: the checkpoint's default (checked: 2 .. the model's positions)
  AnalysisSettings settings;   // settings.words: every capture and result on words
  bool lens_captures = false;  // take the lenses' captures even where needs_lens_captures says no
  bool to_host = true;         // captures and analysis as contiguous CPU float32
  // Nothing the analysis, a view or a result file reads comes after the last layer's head outputs.
  LastLayer last_layer = LastLayer::HeadOutputsOnly;
  // A decoder's this many most likely next tokens (its last layer then runs at its last token
  // too); an encoder has none and is not asked.
  int next_tokens = 0;
  // Given: a text past the plan's length keeps the queries, keys and column sums that recompute its
  // maps instead of the maps (TextCaptures::attention undefined; its analysis never holds an n x n
  // matrix whole). Absent: every map is kept, as whoever reads them (the explorer's views) needs.
  std::optional<CapturePlan> long_texts;
  uint64_t long_pair_mask_bytes = 0;  // AnalysisRun::long_pair_mask_bytes
  // Such a long text's maps, a block of query rows at a time as the forward makes them and drops
  // them (ForwardOptions::attention_blocks): what pools them for a picture needs no second pass.
  AttentionBlockSink attention_blocks;
  // Query rows of such a block (ForwardOptions::block_rows); 0: the forward's (tests set a few).
  int64_t block_rows = 0;
  // Asked between layers, between slices of their products and between the analysis's stages:
  // false abandons the run (attnscope::Cancelled is thrown).
  std::function<bool()> keep_going;
  // Given: a long text's forward ("model", by its blocks of maps) and scan for pairs ("pairs")
  // report how far they have come (a short text's take less than a second and report nothing).
  ProgressReport progress = {};
  // Given: a long text's analysis so far, with its encoding, each time its scan for pairs ends a
  // group of heads (AnalysisRun::so_far): their statistics before the rest are scanned.
  std::function<void(const Encoding& encoding, const TextAnalysis& so_far)> analysis_so_far;
  // Given: told what the run keeps before its forward; what it throws ends the run there (analyze
  // refuses a result it could not write before a forward that may take hours, not after).
  std::function<void(const PlannedRun&)> before_forward;
  // A decoder's text continued from this pipeline's last run that set it and was not abandoned
  // before its analysis was done (a long text's: before its forward was): the tokens the two share
  // at their start do not go through each layer's output projection and feed-forward block again,
  // nor their rows of the maps (model/transformer.h: ForwardPrefix), so text typed or a next token
  // appended at the end costs little more than its own tokens. The captures are a forward's from
  // scratch. A long text's analysis takes each head's pairs among the tokens both share from that
  // run's too (AnalysisRun::resume), the same as found again. Only where the two share at least a
  // sixteenth of the new text's tokens: fewer would not repay a continued forward's extra cost (a
  // text edited at its start runs whole). The explorer's runs.
  bool continues = false;
  // With `continues`, a long text's run (its maps not kept) typed on at its end or edited in its
  // middle makes its blocks of attention rows from the last block before its first new token that
  // the last run kept column sums before on alone (ForwardPrefix::column_sums_before), where
  // whoever reads attention_blocks holds what that run's earlier blocks made: asked with the new
  // run's tokens and that row. Unset: only where nothing reads the blocks.
  std::function<bool(int64_t tokens, int64_t row)> blocks_resume;
  // With `continues`: AnalysisRun::pairs_before_step, and the forward's column sums before its
  // blocks about as often (ForwardOptions::column_sums_every).
  int64_t pairs_before_step = 1024;
  // Given: a long text's forward adds each block of maps it makes to these role rows (started with
  // the text's ids first), so that its head roles make no map again (TextHeadRolesOptions::
  // from_blocks). Read by the thread that runs texts.
  RoleRowsFromBlocks* role_rows = nullptr;
  // Called once the run's forward is the one the next run continues from (its blocks all made),
  // with the rows whose blocks the next run may resume from (blocks_resume asks one of them):
  // whoever keeps what its blocks made for the next run keeps it then.
  std::function<void(const std::vector<int64_t>& rows)> forward_kept;
};

struct TextPipelineResult {
  Encoding encoding;
  TextCaptures captures;
  TextAnalysis analysis;
  std::vector<NextToken> next;   // TextPipelineOptions::next_tokens of them, most likely first
  ComputeDevice device;          // the device that did the work
  double forward_seconds = 0;    // encoding, forward and words
  int64_t tokens_continued = 0;  // the leading tokens taken from the last run (TextPipelineOptions::continues)
  int64_t blocks_from = 0;       // a long text's: its blocks of maps made from this row on (blocks_resume)
  double analysis_seconds = 0;
};

// A loaded checkpoint, and the model name to load it again from when the CPU has to take over.
// One thread runs texts; checkpoint() may be read from any.
class TextPipeline {
 public:
  using Notice = std::function<void(const std::string&)>;  // a message for the user (the CPU took over)

  // Loads `model` (a folder or a cached model id) on `device`, or on the CPU when the GPU runs out of memory.
  TextPipeline(const std::string& model, const ComputeDevice& device, Notice notice = {});
  // A checkpoint already loaded (another worker's): no second copy.
  TextPipeline(std::shared_ptr<const Checkpoint> checkpoint, std::string model, Notice notice = {});

  // Throws attnscope::Error (a text with no word pieces, a length out of range) or Cancelled.
  // `encoder`, when given, tokenises again only what changed since the text it saw last.
  TextPipelineResult run(std::string_view text, const TextPipelineOptions& options,
                         IncrementalEncoder* encoder = nullptr);

  // The analysis half of run() on a text run before: its encoding and captures as run() gave them
  // (on the host, on words where its settings were), analysed with other settings, the forward
  // not run again; what a long text cannot give is refused as run() refuses it. What the
  // explorer does when the settings change and the text does not.
  TextPipelineResult analyze(Encoding encoding, TextCaptures captures, const TextPipelineOptions& options) const;

  std::shared_ptr<const Checkpoint> checkpoint() const;
  const std::string& model() const { return model_; }

 private:
  std::string model_;
  Notice notice_;
  mutable std::mutex mutex_;
  std::shared_ptr<const Checkpoint> checkpoint_;  // replaced by a CPU copy when the GPU ran out of memory
  // The last run with TextPipelineOptions::continues that was analysed (a long text's: whose
  // forward was done), on word pieces: its ids, its captures (each layer's input over them, its
  // maps or a long text's column sums before its last block of rows, head outputs, keys and
  // values, queries and value Gram matrices where kept: continued_from), and the checkpoint that
  // made them. Read and written by the thread that runs texts.
  struct LastForward {
    std::vector<int64_t> ids;
    TextCaptures captures;  // its tensors shared with the run's, not copied
    std::shared_ptr<const Checkpoint> checkpoint;
  };
  LastForward last_forward_;
  // The last such run's analysis, as far as the next one's reads it (resume_point): a long text's
  // pairs among its first tokens, taken where they are the next text's too. Empty before one.
  TextAnalysis last_analysis_;
  void note_continued(const std::vector<int64_t>& ids, const Transformer& model, CheckpointRun& run,
                      TextPipelineResult& r) const;
  void keep_as_last_forward(LastForward forward, const TextPipelineOptions& o);
  ForwardPrefix prefix_for(const std::vector<int64_t>& ids, const std::shared_ptr<const Checkpoint>& checkpoint,
                           const TextPipelineOptions& options) const;
};

}  // namespace attnscope
