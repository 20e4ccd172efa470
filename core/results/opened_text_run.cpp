#include "results/opened_text_run.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "pipeline/long_text_lens_pairs.h"
#include "pipeline/long_text_separators.h"
#include "results/analysis_json.h"
#include "results/head_roles_json.h"

namespace attnscope {
namespace {

// What a view of the file needs and the model would otherwise make: head outputs for S, and a
// long text's maps from its queries and keys without weights.
void check_showable(const TextRunFile& file, const ModelConfig& config, const AnalysisSettings& settings,
                    const std::string& source) {
  if (file.captures == CaptureSet::None || file.captures == CaptureSet::Attention)
    throw Error(source + ": keeps no head outputs (captures \"" + capture_set_name(file.captures) +
                "\"), which every view of S needs: write it with --captures all, or open the text with its model");
  if (settings.words)
    throw Error(source + ": its analysis is on words, which needs the model's tokenizer: open the text with its model");
  if (file.captures == CaptureSet::QueriesAndKeys && config.relative_buckets > 0)
    throw Error(source + ": its maps need the model's bias by distance (" + config.model_type +
                "), which is a weight: open the text with its model");
}

// The stored pairs of S with their scales and statistics (moved out of the file): the analysis
// then skips the scan of every S, most of a long text's analysis. Empty where the pairs come from
// another matrix (the analysis finds them again, with the matrix its views list them from).
std::vector<FoundPairs> stored_pairs_found(TextRunFile& file, const AnalysisSettings& settings,
                                           const std::string& source) {
  std::vector<FoundPairs> found;
  if (!file.analysis || settings.pairs_from != PairInput::Similarity) return found;
  StoredAnalysis& stored = *file.analysis;
  const size_t n = file.run.encoding.size(), H = static_cast<size_t>(file.run.captures.num_heads);
  const auto& layers = stored.summary["layers"];  // checked by load_text_run: L layers of H heads
  for (size_t k = 0; k < stored.pair_counts.size(); ++k) {
    const size_t l = k / H, h = k % H;
    const std::string where = source + ": analysis.layers[" + std::to_string(l) + "].heads[" + std::to_string(h) + "]";
    found.push_back(
        {.scale = stored.scales[k],
         .mask = k < stored.pairs.size() ? std::move(stored.pairs[k]) : PairMask(),
         .count = stored.pair_counts[k],
         .stats = head_stats_from_json(json_field(layers[l]["heads"][h], "stats", where), n, where + ".stats")});
  }
  return found;
}

}  // namespace

at::Tensor separator_columns_made_again(const OpenedTextRun& opened, const AnalysisSettings& settings,
                                        const KeepGoing& keep_going) {
  const TextCaptures& captures = opened.file.run.captures;
  if (!needs_long_text_separator_columns(captures, settings.separators_from)) return {};
  if (!opened.scores) throw Error("this result file keeps neither the maps nor what makes them again");
  return long_text_separator_columns(recomputed_attention_blocks(*opened.scores, captures), captures,
                                     settings.separators_from, {.keep_going = keep_going});
}

OpenedTextRun open_text_run(const std::filesystem::path& path, const KeepGoing& keep_going, uint64_t pair_mask_bytes) {
  // A long text's masks past the bytes kept are made again as a view asks for a head's, as after a run.
  return open_text_run(load_text_run(path, {.long_pair_mask_bytes = pair_mask_bytes}), path.string(), keep_going,
                       pair_mask_bytes);
}

OpenedTextRun open_text_run(TextRunFile read, const std::string& source, const KeepGoing& keep_going,
                            uint64_t pair_mask_bytes) {
  OpenedTextRun opened{std::move(read), {}, {}, {}};
  const TextRunFile& file = opened.file;
  const ModelConfig config = ModelConfig::from_json(file.model_config, source + ": model.config");
  const AnalysisSettings settings =
      file.analysis ? settings_from_json(json_field(file.analysis->summary, "settings", source + ": analysis"),
                                         source + ": analysis.settings")
                    : AnalysisSettings{};
  check_showable(file, config, settings, source);
  if (file.captures == CaptureSet::QueriesAndKeys)
    opened.scores = std::make_shared<const AttentionScores>(config, ComputeDevice{});
  std::vector<FoundPairs> found = stored_pairs_found(opened.file, settings, source);
  AnalysisRun run{.keep_going = keep_going,
                  .found = found.empty() ? nullptr : &found,
                  .long_pair_mask_bytes = pair_mask_bytes,
                  .separator_columns = separator_columns_made_again(opened, settings, keep_going)};
  if (opened.scores) {  // a long text's pairs from a lens: its maps made again without weights
    const auto captures = std::make_shared<const TextCaptures>(file.run.captures);  // tensors shared
    find_long_text_pairs_in_lens(
        run, {[scores = opened.scores, captures] { return recomputed_attention_blocks(*scores, *captures); }, captures},
        settings.pairs_from);
  }
  opened.analysis = analyze_text(file.run.encoding, file.run.captures, settings, run);
  opened.file.analysis.reset();  // its masks are the analysis's now; the rest is in the analysis
  if (!file.head_roles.is_null())
    opened.roles = head_roles_from_json(file.head_roles, config.num_layers, config.num_heads, source);
  return opened;
}

}  // namespace attnscope
