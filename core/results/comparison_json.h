#pragma once
// A head-by-head comparison as JSON (the command line's --json, and the rows of its --csv):
// {"a": {...}, "b": {...}, "alignment": {...}, "heads": [{layer, head, cka, ..., "a": stats,
// "b": stats, "change": B - A}], "all_heads_cka": [[...]] when asked}. Undefined numbers (CKA of a
// constant head, a statistic of a head without pairs) are null.
#include <ATen/core/Tensor.h>

#include <string>

#include <nlohmann/json.hpp>

#include "compare/text_comparison.h"

namespace attnscope {

struct ComparedRunLabel {
  std::string model, text;  // what the run was: the model's folder and the text's source
};

nlohmann::json comparison_to_json(const TextComparison& c, const ComparedRun& a, const ComparedRun& b,
                                  const ComparedRunLabel& label_a, const ComparedRunLabel& label_b,
                                  const at::Tensor& all_heads_cka = {});

// The "heads" of comparison_to_json as CSV, one row per head, nested keys joined by "." (a.count,
// change.repeat_share, ...), empty cells for null; the distance histograms are left out.
std::string comparison_csv(const nlohmann::json& comparison);

}  // namespace attnscope
