// attnscope-cli compare: two runs head by head (docs/compare.md): model A and model B on one
// text (--model-b), or one model on two texts (--text-b / --file-b), or both.
#include <cmath>
#include <iostream>

#include "base/count_text.h"
#include "commands.h"
#include "compared_runs.h"
#include "base/error.h"
#include "results/comparison_json.h"
#include "run_options.h"
#include "text_table.h"
#include "tokenizer/piece_text.h"

namespace attnscope::cli {
namespace {

struct CompareOptions {
  RunOptions run;
  SecondRunOptions second;
  AnalysisOptions analysis;
  int layer = -1;
  bool json = false, csv = false, all_heads = false;
};

std::string number(const std::optional<double>& v, const char* format = "%.3f") {
  if (!v || !std::isfinite(*v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

// "a->b" of one statistic of both runs.
std::string both(const std::optional<double>& a, const std::optional<double>& b, const char* format = "%.2f") {
  return number(a, format) + "->" + number(b, format);
}

std::string anchor(const HeadStats& s, const Encoding& e) {
  return s.anchor_index ? readable_piece(e.tokens[static_cast<size_t>(*s.anchor_index)].text) : "-";
}

// Whether heads were matched: within each layer (two models of one shape) or over all of B's
// (`all`); neither for one model on two texts, whose table then has no match column.
bool has_match(const TextComparison& c, const at::Tensor& all) { return !c.matching.empty() || all.defined(); }

// The head of B most like head (l, h) of A, where has_match: its match within the layer, else the
// head with the largest CKA over all of B's (`all`, [L_A * H_A, L_B * H_B]) as "layer.head"; "-"
// where every CKA is undefined.
std::string match_cell(const TextComparison& c, const at::Tensor& all, int64_t l, int64_t h) {
  if (!c.matching.empty()) {
    const int m = c.matching[static_cast<size_t>(l)][static_cast<size_t>(h)];
    return std::to_string(m) + " (" + number(c.layer_cka[l][h][m].item<double>()) + ")";
  }
  const at::Tensor row = all[l * c.heads_a + h];
  const at::Tensor defined = row.isnan().logical_not();
  if (!defined.any().item<bool>()) return "-";
  const int64_t best = at::where(defined, row, -2.0).argmax().item<int64_t>();
  return std::to_string(best / c.heads_b) + "." + std::to_string(best % c.heads_b) + " (" +
         number(row[best].item<double>()) + ")";
}

// The table's columns; "match (CKA)" only where a match was made (two models, or --all-heads).
TextTable compare_table(bool with_match) {
  std::vector<TextTable::Column> columns{{"layer"},
                                         {"head"},
                                         {"CKA", false, 6},
                                         {"att.cos"},
                                         {"max|dA|"},
                                         {"rel|dS|"},
                                         {"Jaccard"},
                                         {"pairs", false, 11},
                                         {"repeat", false, 11},
                                         {"same.sent", false, 11},
                                         {"mean.d", false, 11},
                                         {"anchor", true}};
  if (with_match) columns.push_back({"match (CKA)", true});
  return TextTable(std::move(columns));
}

void add_layer(TextTable& table, const TextComparison& c, const ComparedRun& a, const ComparedRun& b,
               const at::Tensor& all, int64_t l) {
  table.header();
  for (int64_t h = 0; h < c.heads; ++h) {
    const HeadChange& x = c.change(l, h);
    const HeadStats &sa = a.analysis.head(l, h).stats, &sb = b.analysis.head(l, h).stats;
    std::vector<std::string> cells{std::to_string(l),
                                   std::to_string(h),
                                   number(x.cka),
                                   number(x.attention_cosine),
                                   number(x.attention_max_difference),
                                   number(x.similarity_relative_change),
                                   number(x.jaccard),
                                   std::to_string(sa.count) + "->" + std::to_string(sb.count),
                                   both(sa.repeat_share, sb.repeat_share),
                                   both(sa.same_sentence_share, sb.same_sentence_share),
                                   both(sa.mean_distance, sb.mean_distance, "%.1f"),
                                   anchor(sa, a.encoding) + "->" + anchor(sb, b.encoding)};
    if (has_match(c, all)) cells.push_back(match_cell(c, all, l, h));
    table.row(std::move(cells));
  }
  table.line("");
}

void print_summary(const ComparedTexts& r) {
  const TextComparison& c = *r.comparison;
  std::printf("A: %s, %s, %lld layers x %lld heads\n", r.a.result.checkpoint->dir().c_str(),
              count(r.a.result.run.encoding.size(), "token").c_str(), static_cast<long long>(c.layers_a),
              static_cast<long long>(c.heads_a));
  std::printf("B: %s, %s, %lld layers x %lld heads\n", r.b.result.checkpoint->dir().c_str(),
              count(r.b.result.run.encoding.size(), "token").c_str(), static_cast<long long>(c.layers_b),
              static_cast<long long>(c.heads_b));
  if (c.alignment.identical)
    std::printf("The same tokens in both runs: every measure is defined. ");
  else
    std::printf("The runs share %s: CKA is taken on them; the map measures need the same tokens ('-'). ",
                count(c.alignment.size(), "token").c_str());
  std::printf("Changes read A->B; '-' = undefined; tau %.3g.\n", r.a.analysis.settings.tau);
  if (!c.same_shape())
    std::printf(
        "The models differ in shape: the table covers %s; its match is the head of B (layer.head) with the "
        "largest CKA among all of B's.\n",
        c.shared_grid().c_str());
  std::printf("\n");
}

int run_compare(const CompareOptions& o) {
  const auto runs = compare_runs(o.run, o.second, o.analysis);
  const TextComparison& c = *runs->comparison;
  const ComparedRun a = runs->view_a(), b = runs->view_b();
  if (o.layer >= c.layers)
    throw Error("layer " + std::to_string(o.layer) + " is not in both models (layers 0 to " +
                std::to_string(c.layers - 1) + ")");
  const at::Tensor all = o.all_heads || !c.same_shape() ? all_heads_cka(a, b, c.alignment) : at::Tensor();
  if (o.json || o.csv) {
    const auto label = [](const TextResult& r, const RunOptions& run) {
      return ComparedRunLabel{r.checkpoint->dir().string(),
                              run.input.file.empty() ? std::string("--text") : run.input.file};
    };
    const nlohmann::json out =
        comparison_to_json(c, a, b, label(runs->a.result, o.run), label(runs->b.result, runs->run_b), all);
    std::cout << (o.csv ? comparison_csv(out) : out.dump() + "\n");
    return 0;
  }
  print_summary(*runs);
  TextTable table = compare_table(has_match(c, all));
  for (int64_t l = o.layer < 0 ? 0 : o.layer; l <= (o.layer < 0 ? c.layers - 1 : o.layer); ++l)
    add_layer(table, c, a, b, all, l);
  table.print();
  return 0;
}

}  // namespace

Action add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Two runs head by head: model A against model B on one text (--model-b), or one model on two texts "
      "(--text-b / --file-b). Prints per head the linear CKA of the head outputs, the change of the attention "
      "map and of S, the Jaccard index of the pair sets, each statistic of both runs, and which head of B does "
      "what each head of A does (docs/compare.md)");
  add_run_options(*cmd, o->run);
  add_long_text_options(*cmd, o->run);
  add_second_run_options(*cmd, o->second);
  add_analysis_options(*cmd, o->analysis);
  cmd->add_option("--layer", o->layer, "Only this layer in the table (default: every layer)")
      ->check(CLI::NonNegativeNumber);
  auto* json = cmd->add_flag("--json", o->json,
                             "Print JSON (every head, both runs' statistics, the matching) instead of a table");
  cmd->add_flag("--csv", o->csv, "Print CSV, one row per head, for pandas")->excludes(json);
  cmd->add_flag("--all-heads", o->all_heads,
                "Also the CKA of every head of A with every head of B: in the JSON, and in the table the head of "
                "B most like each head of A where no matching within layers is made (always so when the models "
                "differ in shape)");
  return [o] { return run_compare(*o); };
}

}  // namespace attnscope::cli
