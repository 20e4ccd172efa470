#pragma once
// The result file of one analysed text (`attnscope-cli analyze --out`), format version 2: the
// model, the tokens with their byte ranges, the captures the user asked to keep (attention maps
// A and head outputs C = A V as raw float32, or only A, or none) and the paper's analysis, with
// every head's high-similarity pairs as a packed mask over the upper triangle. Two containers hold
// the same content: a binary one in the safetensors layout (compact: the float32 captures plus a
// few percent, written at the speed of the disk, opened by Python's safetensors and numpy) and a
// JSON one (tensors in base64 or decimal, for jq). Version 1 files (JSON, before the pairs became
// masks) are still read. docs/result-format.md describes both.
#include <filesystem>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/text_analysis.h"
#include "base/progress.h"
#include "model/checkpoint.h"

namespace attnscope {

// All: the attention maps and head outputs; Attention: the maps alone; None: the analysis alone.
// QueriesAndKeys: what a long text keeps (model/capture_plan.h), every map recomputed from it:
// the queries and keys as the scores use them, the maps' column sums and the head outputs.
enum class CaptureSet { All, Attention, None, QueriesAndKeys };
enum class ResultContainer { Binary, Json };

const char* capture_set_name(CaptureSet set);             // "all", "attention", "none", "queries-keys"
CaptureSet capture_set_by_name(const std::string& name);  // throws attnscope::Error

// The analysis as a file holds it: the summary (settings, sentences, segments, and per layer and
// head the scale, separators and statistics) and every head's pairs.
struct StoredAnalysis {
  nlohmann::json summary;            // as analysis_to_json
  std::vector<float> scales;         // per head, layer-major: max S (from the summary)
  std::vector<PairMask> pairs;       // per head, layer-major; a head's empty (no tokens) when not read (TextRunLoad)
  std::vector<int64_t> pair_counts;  // per head, layer-major: the pairs in each mask, read or not
  at::Tensor pair_values;            // [P] float32 S_hat in mask order; undefined when the file has the head outputs
};

struct TextRunFile {
  std::string model_path;
  nlohmann::json model_config;  // as ModelConfig::to_json
  std::string device;           // e.g. "cpu float32"
  std::string text;
  size_t max_length = 0;
  TextRun run;  // captures as CPU float32; attention / head_outputs undefined when not kept
  CaptureSet captures = CaptureSet::All;
  int version = 2;                         // as read
  std::optional<StoredAnalysis> analysis;  // version 2 files that were written with one
  nlohmann::json head_roles;               // results/head_roles_json.h; null when the file has none
};

// The largest result written unless asked otherwise, in bytes of its tensors: 4 GB (a 512-token
// BERT-base result is 174 MB; an 8,192-token ModernBERT-base one with queries and keys 2.8 GB).
constexpr double kDefaultResultLimitBytes = 4e9;

struct ResultWriteOptions {
  ResultContainer container = ResultContainer::Binary;
  CaptureSet captures = CaptureSet::All;
  bool decimal = false;                           // JSON container: float tensors as decimal lists instead of base64
  double limit_bytes = kDefaultResultLimitBytes;  // a file of more tensor bytes is refused, saying its size
  ProgressReport progress = {};                   // ("writing", share of the tensors written), either container
};

// What a run will keep, known once its text is encoded: enough to refuse, before a forward that
// may take hours, a result it could not write.
struct PlannedResult {
  const ModelConfig* config = nullptr;
  int64_t tokens = 0;     // as the result holds them (word pieces)
  bool maps_kept = true;  // false: a long text's queries and keys instead (KeptAttention::QueriesAndKeys)
  bool lenses = false;    // the lenses' captures taken (with the queries and keys)
  bool analysis = true;   // written with its pairs' masks
};

// The capture set a run writes when `asked` is: a long text keeps no maps, so "all" writes what
// makes every one of them again ("queries-keys").
CaptureSet written_captures(CaptureSet asked, bool maps_kept);
// The same for a run's captures: a long text on words keeps neither its words' maps nor their
// queries and keys (its pieces' make them again), so "all" writes the analysis alone ("none").
CaptureSet written_captures(CaptureSet asked, const TextCaptures& kept);
// Throws attnscope::Error unless `written` is "none": what a long text on words may write.
void require_captures_of_long_words(CaptureSet written);
// The bytes of the tensors such a result holds whatever its analysis finds (its captures and pair
// masks; the pairs' values, 4 bytes a pair where written, come on top).
double planned_result_bytes(const PlannedResult& plan, CaptureSet captures);
// Throws attnscope::Error, in the words save_text_run would use after the run, for a capture set
// the run will not keep and for a result whose known part is already over options.limit_bytes.
void check_planned_result(const PlannedResult& plan, const ResultWriteOptions& options);

// Throws attnscope::Error as save_text_run would for a result over options.limit_bytes, making and
// writing nothing (the pairs' values are counted, not found again): what to ask before work that
// only the written file needs.
void check_text_run_size(const TextRunFile& file, const TextAnalysis* analysis, const ResultWriteOptions& options);
// `analysis` may be null (captures only). Written atomically. Throws attnscope::Error, also for
// a result over options.limit_bytes (before writing anything: the line gives what it would need).
void save_text_run(const std::filesystem::path& path, const TextRunFile& file, const TextAnalysis* analysis,
                   const ResultWriteOptions& options);
// The JSON container written to `out` a piece at a time (results/json_stream.h), a line end after
// it: text_run_to_json's dump, without the document whole in memory (standard output, a file).
void write_text_run_json(std::ostream& out, const TextRunFile& file, const TextAnalysis* analysis,
                         const ResultWriteOptions& options);
// The JSON container as a value.
nlohmann::json text_run_to_json(const TextRunFile& file, const TextAnalysis* analysis,
                                const ResultWriteOptions& options);

struct TextRunLoad {
  // A long text's pair masks (a file of captures "queries-keys") read into StoredAnalysis::pairs up
  // to this many bytes together (PairMaskBudget: the heads that fit, in order). Those left out are
  // counted where they lie and not copied (up to n^2 / 16 bytes a head: 1.1 GB for a
  // ModernBERT-base-sized model at 8,192 tokens): what shows the file makes a view's head's again
  // from the head outputs, as after a long text's run (open_text_run).
  uint64_t long_pair_mask_bytes = kEveryPairMask;
};

// Any version and container; throws attnscope::Error naming what is wrong.
TextRunFile load_text_run(const std::filesystem::path& path, const TextRunLoad& load = {});
TextRunFile text_run_from_bytes(std::span<const std::byte> bytes, const std::string& source,
                                const TextRunLoad& load = {});

// One head's pairs with their S_hat, from a file's stored analysis (values from the stored list,
// or recomputed from the head outputs exactly as the analysis computes them); refused for a file
// read without its masks.
std::vector<TokenPair> stored_pairs(const TextRunFile& file, int layer, int head);

}  // namespace attnscope
