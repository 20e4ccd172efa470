#include "results/analysis_json.h"

#include <algorithm>
#include <cstdlib>

#include "base/json_fields.h"

namespace attnscope {
namespace {

// Histogram as {distance: count} for the distances that occur.
nlohmann::json histogram(const std::vector<int64_t>& counts) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t d = 0; d < counts.size(); ++d)
    if (counts[d]) out[std::to_string(d)] = counts[d];
  return out;
}

}  // namespace

nlohmann::json settings_to_json(const AnalysisSettings& s) {
  return {{"tau", s.tau},
          {"tau_sep", s.tau_sep},
          {"include_special", s.include_special},
          {"separators_text_only", s.separators_text_only},
          {"separators_from", s.separators_from == SeparatorInput::Norm      ? "norm"
                              : s.separators_from == SeparatorInput::Rollout ? "rollout"
                                                                             : "attention"},
          {"pairs_from", pair_input_name(s.pairs_from)},
          {"units", s.words ? "words" : "pieces"},
          {"sentences", s.sentences == SentenceMode::Punctuation ? "punct" : "segments"},
          {"segment_map",
           {{"layer", s.segment_map.layer},
            {"head", s.segment_map.head < 0 ? nlohmann::json("sum") : nlohmann::json(s.segment_map.head)}}}};
}

namespace {

// One of `names` (their index), or the fallback when the field is absent; any other value refused.
int named_choice(const nlohmann::json& j, const char* key, std::initializer_list<const char*> names, int fallback,
                 const std::string& where) {
  if (json_member(j, key).is_null()) return fallback;
  const auto value = json_typed<std::string>(j, key, where);
  int k = 0;
  for (const char* name : names) {
    if (value == name) return k;
    ++k;
  }
  throw Error(where + ": \"" + key + "\" cannot be \"" + value + "\"");
}

}  // namespace

// Fields added after the first files were written (text-only separators, lenses, words) take
// their defaults when absent.
AnalysisSettings settings_from_json(const nlohmann::json& j, const std::string& where) {
  AnalysisSettings s;
  s.tau = json_typed<double>(j, "tau", where);
  s.tau_sep = json_typed<double>(j, "tau_sep", where);
  s.include_special = json_typed<bool>(j, "include_special", where);
  s.separators_text_only = json_optional<bool>(j, "separators_text_only", false, where);
  s.separators_from =
      static_cast<SeparatorInput>(named_choice(j, "separators_from", {"attention", "norm", "rollout"}, 0, where));
  s.pairs_from = static_cast<PairInput>(
      named_choice(j, "pairs_from", {"similarity", "cosine", "attention", "norm", "rollout"}, 0, where));
  s.words = named_choice(j, "units", {"pieces", "words"}, 0, where) == 1;
  s.sentences = named_choice(j, "sentences", {"punct", "segments"}, -1, where) == 1 ? SentenceMode::Segments
                                                                                    : SentenceMode::Punctuation;
  const auto& map = json_field(j, "segment_map", where);
  s.segment_map.layer = json_typed<int>(map, "layer", where + ": segment_map");
  s.segment_map.head =
      json_member(map, "head").is_string() ? -1 : json_typed<int>(map, "head", where + ": segment_map");
  return s;
}

nlohmann::json head_stats_to_json(const HeadStats& s) {
  return {{"count", s.count},
          {"density", json_or_null(s.density)},
          {"repeat_share", json_or_null(s.repeat_share)},
          {"same_sentence_repeat_share", json_or_null(s.same_sentence_repeat_share)},
          {"same_sentence_share", json_or_null(s.same_sentence_share)},
          {"chance_same_sentence", json_or_null(s.chance_same_sentence)},
          {"mean_distance", json_or_null(s.mean_distance)},
          {"distance_histogram", histogram(s.distance_histogram)},
          {"anchor_index", json_or_null(s.anchor_index)},
          {"anchor_id", json_or_null(s.anchor_id)},
          {"anchor_share", json_or_null(s.anchor_share)}};
}

namespace {

template <typename T>
std::optional<T> optional_from(const nlohmann::json& j, const char* key, const std::string& where) {
  if (json_member(j, key).is_null()) return std::nullopt;
  return json_typed<T>(j, key, where);
}

}  // namespace

HeadStats head_stats_from_json(const nlohmann::json& j, size_t n, const std::string& where) {
  HeadStats s;
  s.count = json_typed<int>(j, "count", where);
  s.density = optional_from<double>(j, "density", where);
  s.repeat_share = optional_from<double>(j, "repeat_share", where);
  s.same_sentence_repeat_share = optional_from<double>(j, "same_sentence_repeat_share", where);
  s.same_sentence_share = optional_from<double>(j, "same_sentence_share", where);
  s.chance_same_sentence = optional_from<double>(j, "chance_same_sentence", where);
  s.mean_distance = optional_from<double>(j, "mean_distance", where);
  s.anchor_index = optional_from<int>(j, "anchor_index", where);
  s.anchor_id = optional_from<int32_t>(j, "anchor_id", where);
  s.anchor_share = optional_from<double>(j, "anchor_share", where);
  if (s.count < 0) throw Error(where + ": \"count\" cannot be negative");
  if (s.anchor_index && (*s.anchor_index < 0 || static_cast<size_t>(*s.anchor_index) >= n))
    throw Error(where + ": \"anchor_index\" " + std::to_string(*s.anchor_index) + " is not one of " +
                std::to_string(n) + " tokens");
  s.distance_histogram.assign(std::max<size_t>(n, 1), 0);
  const auto& histogram = json_field(j, "distance_histogram", where);
  if (!histogram.is_object()) throw Error(where + ": \"distance_histogram\" must be an object");
  for (const auto& [distance, count] : histogram.items()) {
    const size_t d = std::strtoul(distance.c_str(), nullptr, 10);
    if (d >= s.distance_histogram.size() || std::to_string(d) != distance)
      throw Error(where + ": distance " + distance + " is not one of " + std::to_string(n) + " tokens");
    s.distance_histogram[d] = json_integer<int64_t>(count, where + ": distance_histogram");
  }
  return s;
}

nlohmann::json pairs_to_json(const std::vector<TokenPair>& pairs, const Encoding& e) {
  nlohmann::json out = nlohmann::json::array();
  for (const TokenPair& p : pairs)
    out.push_back({{"token_i", e.tokens[static_cast<size_t>(p.i)].text},
                   {"token_j", e.tokens[static_cast<size_t>(p.j)].text},
                   {"index_i", p.i},
                   {"index_j", p.j},
                   {"value", p.value}});
  return out;
}

nlohmann::json analysis_to_json(const TextAnalysis& a, const Encoding&) {
  nlohmann::json layers = nlohmann::json::array();
  for (int64_t l = 0; l < a.num_layers; ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (int64_t h = 0; h < a.num_heads; ++h) {
      const HeadAnalysis& head = a.head(l, h);
      heads.push_back({{"head", h},
                       {"scale", head.scale},
                       {"separators", head.separators.positions},
                       {"pair_count", head.pair_count},
                       {"stats", head_stats_to_json(head.stats)}});
    }
    const LayerAnalysis& layer = a.layers[static_cast<size_t>(l)];
    layers.push_back({{"layer", l},
                      {"separators", layer.separators.positions},
                      {"distinct_anchors", layer.distinct_anchors},
                      {"distance_histogram", histogram(layer.distance_histogram)},
                      {"heads", std::move(heads)}});
  }
  nlohmann::json segments = nlohmann::json::array();
  for (const Segment& s : a.segments) segments.push_back({s.first, s.last});
  return {{"settings", settings_to_json(a.settings)},
          {"sentences", a.facts.sentence},
          {"segment_separators", a.segment_separators.positions},
          {"segments", segments},
          {"layers", std::move(layers)}};
}

}  // namespace attnscope
