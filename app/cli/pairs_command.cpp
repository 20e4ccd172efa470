#include <cmath>
#include <iostream>

#include "commands.h"
#include "analysis/strongest_pairs.h"
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
  size_t top = 0;  // 0: every pair, in text order
  bool json = false;
};

int run_pairs(const PairsOptions& o) {
  const auto [r, a] = run_and_analyze(o.run, o.analysis);
  if (o.layer >= a.num_layers || o.head >= a.num_heads)
    throw Error("layer " + std::to_string(o.layer) + " head " + std::to_string(o.head) + " is not in this model (" +
                std::to_string(a.num_layers) + " layers x " + std::to_string(a.num_heads) + " heads, numbered from 0)");
  const HeadAnalysis& head = a.head(o.layer, o.head);
  // A long text's head may bind millions of pairs, of which a reader wants the strongest, not the
  // first in the text: found without listing them all (strongest_pairs.h).
  const std::vector<TokenPair> pairs = o.top > 0 ? strongest_head_pairs(a, o.layer, o.head, static_cast<int64_t>(o.top))
                                                 : head_pairs(a, o.layer, o.head);
  const auto in_all = static_cast<uint64_t>(head.pair_count);
  const Encoding& e = r.run.encoding;
  if (o.json) {
    std::cout
        << nlohmann::json{{"layer", o.layer},    {"head", o.head},       {"settings", settings_to_json(a.settings)},
                          {"scale", head.scale}, {"pair_count", in_all}, {"pairs", pairs_to_json(pairs, e)}}
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
  std::printf("Layer %d, head %d: %s with %s / max %s >= %.3g (max %s = %s)%s\n", o.layer, o.head,
              count(in_all, "pair").c_str(), m, m, a.settings.tau, m, scale,
              o.top > 0 && pairs.size() < in_all
                  ? ("; the " + digit_groups(pairs.size()) + " strongest, strongest first").c_str()
                  : "");
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
  cmd->add_option("--top", o->top,
                  "Only the N pairs of largest value, largest first (default: every pair, in the text's order)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  return [o] { return run_pairs(*o); };
}

}  // namespace attnscope::cli
