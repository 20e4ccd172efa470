#include <cmath>
#include <iostream>

#include "commands.h"
#include "base/count_text.h"
#include "base/error.h"
#include "results/analysis_json.h"
#include "run_options.h"
#include "text_cell.h"
#include "tokenizer/piece_text.h"

namespace attnscope::cli {
namespace {

struct PairsOptions {
  RunOptions run;
  AnalysisOptions analysis;
  int layer = -1, head = -1;
  bool json = false;
};

int run_pairs(const PairsOptions& o) {
  const auto [r, a] = run_and_analyze(o.run, o.analysis);
  if (o.layer >= a.num_layers || o.head >= a.num_heads)
    throw Error("layer " + std::to_string(o.layer) + " head " + std::to_string(o.head) + " is not in this model (" +
                std::to_string(a.num_layers) + " layers x " + std::to_string(a.num_heads) + " heads, numbered from 0)");
  const HeadAnalysis& head = a.head(o.layer, o.head);
  const std::vector<TokenPair> pairs = head_pairs(a, o.layer, o.head);
  const Encoding& e = r.run.encoding;
  if (o.json) {
    std::cout << nlohmann::json{{"layer", o.layer},
                                {"head", o.head},
                                {"settings", settings_to_json(a.settings)},
                                {"scale", head.scale},
                                {"pairs", pairs_to_json(pairs, e)}}
                     .dump()
              << "\n";
    return 0;
  }
  const bool of_s = a.settings.pairs_from == PairInput::Similarity;
  const char* m = of_s ? "S" : "M";
  if (!of_s)
    std::printf("M: %s%s\n", pair_input_name(a.settings.pairs_from),
                a.settings.pairs_from == PairInput::Cosine ? "" : ", averaged with its transpose");
  char scale[32] = "none: one token";
  if (std::isfinite(head.scale)) std::snprintf(scale, sizeof scale, "%.4g", head.scale);
  std::printf("Layer %d, head %d: %s with %s / max %s >= %.3g (max %s = %s)\n", o.layer, o.head,
              count(pairs.size(), "pair").c_str(), m, m, a.settings.tau, m, scale);
  if (std::isfinite(head.scale) && head.scale <= 0)
    std::printf("(the largest off-diagonal value is not positive: no high elements)\n");
  if (pairs.empty()) return 0;
  std::printf("%-16s %-16s %7s %7s %7s\n", "Token_i", "Token_j", "Index_i", "Index_j", of_s ? "S_hat" : "M_hat");
  for (const TokenPair& p : pairs)
    std::printf("%s %s %7d %7d %7.3f\n",
                left_aligned(readable_piece(e.tokens[static_cast<size_t>(p.i)].text), 16).c_str(),
                left_aligned(readable_piece(e.tokens[static_cast<size_t>(p.j)].text), 16).c_str(), p.i, p.j, p.value);
  return 0;
}

}  // namespace

Action add_pairs_command(CLI::App& app) {
  auto o = std::make_shared<PairsOptions>();
  auto* cmd = app.add_subcommand(
      "pairs", "The token pairs one head binds together: its high-similarity elements (the paper's Fig. 9 table)");
  add_run_options(*cmd, o->run);
  add_long_text_options(*cmd, o->run);
  add_analysis_options(*cmd, o->analysis, "--matrix,--pairs-from");
  cmd->add_option("--layer", o->layer, "Layer, numbered from 0")->required()->check(CLI::NonNegativeNumber);
  cmd->add_option("--head", o->head, "Head, numbered from 0")->required()->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  return [o] { return run_pairs(*o); };
}

}  // namespace attnscope::cli
