#include "results/comparison_json.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/json_fields.h"
#include "results/analysis_json.h"

namespace attnscope {
namespace {

nlohmann::json finite(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json run_json(const ComparedRun& r, const ComparedRunLabel& label) {
  return {{"model", label.model},
          {"text", label.text},
          {"tokens", r.encoding.size()},
          {"layers", r.analysis.num_layers},
          {"heads", r.analysis.num_heads}};
}

nlohmann::json stats_json(const HeadStats& s, const Encoding& e) {
  nlohmann::json out = head_stats_to_json(s);
  out.erase("distance_histogram");
  out["anchor_token"] =
      s.anchor_index ? nlohmann::json(e.tokens[static_cast<size_t>(*s.anchor_index)].text) : nlohmann::json(nullptr);
  return out;
}

nlohmann::json change_json(const StatsChange& c) {
  return {{"count", c.count},
          {"density", json_or_null(c.density)},
          {"repeat_share", json_or_null(c.repeat_share)},
          {"same_sentence_share", json_or_null(c.same_sentence_share)},
          {"mean_distance", json_or_null(c.mean_distance)},
          {"anchor_share", json_or_null(c.anchor_share)},
          {"same_anchor", json_or_null(c.same_anchor)}};
}

nlohmann::json head_json(const TextComparison& c, const ComparedRun& a, const ComparedRun& b, int64_t l, int64_t h) {
  const HeadChange& change = c.change(l, h);
  nlohmann::json out{{"layer", l},
                     {"head", h},
                     {"cka", finite(change.cka)},
                     {"attention_cosine", json_or_null(change.attention_cosine)},
                     {"attention_max_difference", json_or_null(change.attention_max_difference)},
                     {"similarity_relative_change", json_or_null(change.similarity_relative_change)},
                     {"jaccard", json_or_null(change.jaccard)},
                     {"matched_head", nullptr},
                     {"matched_cka", nullptr}};
  if (!c.matching.empty()) {
    const int matched = c.matching[static_cast<size_t>(l)][static_cast<size_t>(h)];
    out["matched_head"] = matched;
    out["matched_cka"] = finite(c.layer_cka[l][h][matched].item<double>());
  }
  out["a"] = stats_json(a.analysis.head(l, h).stats, a.encoding);
  out["b"] = stats_json(b.analysis.head(l, h).stats, b.encoding);
  out["change"] = change_json(change.stats);
  return out;
}

void flatten(const nlohmann::json& value, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& cells) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) flatten(item, prefix.empty() ? key : prefix + "." + key, cells);
    return;
  }
  std::string text = value.is_null() ? "" : value.is_string() ? value.get<std::string>() : value.dump();
  if (value.is_string() && text.find_first_of(",\"\n") != std::string::npos) {  // quoted as RFC 4180 asks
    std::string quoted = "\"";
    for (const char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    text = quoted + "\"";
  }
  cells.emplace_back(prefix, text);
}

}  // namespace

nlohmann::json comparison_to_json(const TextComparison& c, const ComparedRun& a, const ComparedRun& b,
                                  const ComparedRunLabel& label_a, const ComparedRunLabel& label_b,
                                  const at::Tensor& all_heads_cka) {
  nlohmann::json heads = nlohmann::json::array();
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t h = 0; h < c.heads; ++h) heads.push_back(head_json(c, a, b, l, h));
  nlohmann::json out{{"a", run_json(a, label_a)},
                     {"b", run_json(b, label_b)},
                     {"settings", settings_to_json(a.analysis.settings)},
                     {"alignment", {{"identical", c.alignment.identical}, {"matched_tokens", c.alignment.size()}}},
                     {"heads", std::move(heads)}};
  if (all_heads_cka.defined()) {
    nlohmann::json rows = nlohmann::json::array();
    const at::Tensor cka = all_heads_cka.to(at::kDouble).contiguous();
    for (int64_t i = 0; i < cka.size(0); ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (int64_t j = 0; j < cka.size(1); ++j) row.push_back(finite(cka[i][j].item<double>()));
      rows.push_back(std::move(row));
    }
    out["all_heads_cka"] = std::move(rows);
  }
  return out;
}

std::string comparison_csv(const nlohmann::json& comparison) {
  std::ostringstream out;
  bool header = true;
  for (const nlohmann::json& head : comparison.at("heads")) {
    std::vector<std::pair<std::string, std::string>> cells;
    flatten(head, "", cells);
    std::stable_partition(cells.begin(), cells.end(),
                          [](const auto& cell) { return cell.first == "layer" || cell.first == "head"; });
    if (cells.size() > 1 && cells[0].first == "head") std::swap(cells[0], cells[1]);  // layer, then head
    for (size_t k = 0; header && k < cells.size(); ++k)
      out << (k ? "," : "") << cells[k].first << (k + 1 == cells.size() ? "\n" : "");
    header = false;
    for (size_t k = 0; k < cells.size(); ++k) out << (k ? "," : "") << cells[k].second;
    out << "\n";
  }
  return out.str();
}

}  // namespace attnscope
