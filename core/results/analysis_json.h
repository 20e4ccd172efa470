#pragma once
// The analysis of one text as JSON (part of `analyze`'s result file and of `pairs`/`stats --json`).
// Undefined statistics are null, never 0.
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/text_analysis.h"

namespace attnscope {

nlohmann::json settings_to_json(const AnalysisSettings& settings);
// What settings_to_json wrote; throws attnscope::Error naming `where` and the field.
AnalysisSettings settings_from_json(const nlohmann::json& json, const std::string& where);
nlohmann::json head_stats_to_json(const HeadStats& stats);
// What head_stats_to_json wrote, for a text of n tokens; throws attnscope::Error naming `where`.
HeadStats head_stats_from_json(const nlohmann::json& json, size_t n, const std::string& where);
nlohmann::json pairs_to_json(const std::vector<TokenPair>& pairs, const Encoding& encoding);
// Everything but the pairs themselves (a result file stores them as masks; see text_run_file.h):
// per head its pair count, scale, separators and statistics.
nlohmann::json analysis_to_json(const TextAnalysis& analysis, const Encoding& encoding);

}  // namespace attnscope
