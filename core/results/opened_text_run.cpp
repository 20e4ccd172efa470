#include "results/opened_text_run.h"

#include "base/error.h"
#include "base/json_fields.h"
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

}  // namespace

OpenedTextRun open_text_run(const std::filesystem::path& path, const KeepAnalysing& keep_going) {
  const std::string source = path.string();
  OpenedTextRun opened{load_text_run(path), {}, {}, {}};
  const TextRunFile& file = opened.file;
  const ModelConfig config = ModelConfig::from_json(file.model_config, source + ": model.config");
  const AnalysisSettings settings =
      file.analysis ? settings_from_json(json_field(file.analysis->summary, "settings", source + ": analysis"),
                                         source + ": analysis.settings")
                    : AnalysisSettings{};
  check_showable(file, config, settings, source);
  if (file.captures == CaptureSet::QueriesAndKeys)
    opened.scores = std::make_shared<const AttentionScores>(config, ComputeDevice{});
  opened.analysis = analyze_text(file.run.encoding, file.run.captures, settings, {.keep_going = keep_going});
  opened.file.analysis.reset();  // made again above: the stored masks would only double what is held
  if (!file.head_roles.is_null())
    opened.roles = head_roles_from_json(file.head_roles, config.num_layers, config.num_heads, source);
  return opened;
}

}  // namespace attnscope
