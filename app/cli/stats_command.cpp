#include <iostream>

#include "base/count_text.h"
#include "commands.h"
#include "base/error.h"
#include "results/analysis_json.h"
#include "optional_cell.h"
#include "run_options.h"
#include "text_table.h"
#include "tokenizer/piece_text.h"

namespace attnscope::cli {
namespace {

struct StatsOptions {
  RunOptions run;
  AnalysisOptions analysis;
  int layer = -1;  // -1: every layer
  bool json = false;
};

TextTable stats_table() {
  return TextTable({{"layer"},
                    {"head"},
                    {"pairs", false, 6},
                    {"density"},
                    {"repeat", false, 7},
                    {"rep.sent", false, 9},
                    {"same.sent"},
                    {"chance", false, 7},
                    {"mean.d", false, 8},
                    {"anchor (share)", true}});
}

void add_layer(TextTable& table, const TextAnalysis& a, const Encoding& e, int64_t l) {
  table.header();
  for (int64_t h = 0; h < a.num_heads; ++h) {
    const HeadStats& s = a.head(l, h).stats;
    const std::string anchor = s.anchor_index ? readable_piece(e.tokens[static_cast<size_t>(*s.anchor_index)].text) +
                                                    "@" + std::to_string(*s.anchor_index) + " (" +
                                                    optional_cell(s.anchor_share, "%.2f") + ")"
                                              : "-";
    table.row({std::to_string(l), std::to_string(h), std::to_string(s.count), optional_cell(s.density),
               optional_cell(s.repeat_share), optional_cell(s.same_sentence_repeat_share),
               optional_cell(s.same_sentence_share), optional_cell(s.chance_same_sentence),
               optional_cell(s.mean_distance, "%.1f"), anchor});
  }
  table.line("layer " + std::to_string(l) + ": " + std::to_string(a.layers[static_cast<size_t>(l)].distinct_anchors) +
             " distinct anchor tokens among " + std::to_string(a.num_heads) + " heads");
  table.line("");
}

int run_stats(const StatsOptions& o) {
  const auto [r, a] = run_and_analyze(o.run, o.analysis);
  if (o.layer >= a.num_layers)
    throw Error("layer " + std::to_string(o.layer) + " is not in this model (layers 0 to " +
                std::to_string(a.num_layers - 1) + ")");
  const int64_t first = o.layer < 0 ? 0 : o.layer, last = o.layer < 0 ? a.num_layers - 1 : o.layer;
  if (o.json) {
    nlohmann::json layers = nlohmann::json::array();
    for (int64_t l = first; l <= last; ++l) {
      nlohmann::json heads = nlohmann::json::array();
      for (int64_t h = 0; h < a.num_heads; ++h) heads.push_back(head_stats_to_json(a.head(l, h).stats));
      layers.push_back(
          {{"layer", l}, {"distinct_anchors", a.layers[static_cast<size_t>(l)].distinct_anchors}, {"heads", heads}});
    }
    std::cout << nlohmann::json{{"settings", settings_to_json(a.settings)}, {"layers", layers}}.dump() << "\n";
    return 0;
  }
  std::printf("%s, %s (%s); tau %.3g; '-' = undefined (the head has no pairs)\n\n",
              count(r.run.encoding.size(), "token").c_str(), count(a.sentence_count(), "sentence").c_str(),
              o.analysis.sentences.c_str(), a.settings.tau);
  TextTable table = stats_table();
  for (int64_t l = first; l <= last; ++l) add_layer(table, a, r.run.encoding, l);
  table.print();
  return 0;
}

}  // namespace

Action add_stats_command(CLI::App& app) {
  auto o = std::make_shared<StatsOptions>();
  auto* cmd = app.add_subcommand(
      "stats",
      "Per-head statistics of the high-similarity pairs for a text: repeat share, same-sentence share beside "
      "its chance level, mean distance, anchor token (METHOD.md)");
  add_run_options(*cmd, o->run);
  add_long_text_options(*cmd, o->run);
  add_analysis_options(*cmd, o->analysis, "--matrix,--pairs-from");
  cmd->add_option("--layer", o->layer, "Only this layer (default: every layer)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  return [o] { return run_stats(*o); };
}

}  // namespace attnscope::cli
