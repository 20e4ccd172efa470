#include <cstdio>
#include <filesystem>

#include "base/count_text.h"
#include "commands.h"
#include "compared_runs.h"
#include "corpus_runner.h"
#include "base/error.h"
#include "figures/compare_corpus_figures.h"
#include "figures/compare_figures.h"
#include "figures/corpus_figures.h"
#include "figures/figure_export.h"
#include "figures/text_figures.h"
#include "results/corpus_json.h"
#include "pipeline/text_pipeline.h"
#include "progress_line.h"
#include "run_options.h"

namespace attnscope::cli {
namespace {

struct FigureCommandOptions {
  RunOptions run;
  SecondRunOptions second;
  AnalysisOptions analysis;
  std::string figure, out, corpus, corpus_b, matrix = "attention", colormap = "viridis", scale = "linear";
  std::string layer_matrix = "similarity";
  int layer = -1, head = 0, query = 0, key = -1;
  bool rollout_of_norm = false;
  bool strongest_pairs = false;  // Fig. 9's table: the head's strongest pairs rather than its first
  std::vector<int> layers, heads;
  double png_scale = 2, width = 0;
};

FigureOptions figure_options(const FigureCommandOptions& o, std::string caption) {
  FigureOptions f;
  f.layer = o.layer;
  f.head = o.head;
  f.layers = o.layers;
  f.heads = o.heads;
  f.query = o.query;
  f.rollout_of_norm = o.rollout_of_norm;
  f.pair_table = o.strongest_pairs ? PairListing::Strongest : PairListing::FirstInText;
  f.key = o.key;
  f.matrix = matrix_by_name(o.matrix);
  f.layer_matrix = matrix_by_name(o.layer_matrix);
  f.colormap = colormap_by_name(o.colormap);
  f.scale = value_scale_by_name(o.scale);
  f.caption = std::move(caption);
  return f;
}

Figure corpus_result_figure(const FigureCommandOptions& o) {
  const CorpusFile file = load_corpus_shown(o.corpus);
  const std::string caption = file.model_path + ", " + std::to_string(file.windows) + " windows of " +
                              std::to_string(file.accumulator->window()) + " tokens" +
                              (file.partial ? " (partial run)" : "");
  return corpus_figure(o.figure, *file.accumulator, figure_options(o, caption));
}

// Two corpus results: A and B by their models' folder names (or "A" and "B" when they are the same).
Figure compared_corpus_figure(const FigureCommandOptions& o) {
  const CorpusFile a = load_corpus_shown(o.corpus), b = load_corpus_shown(o.corpus_b);
  const std::string model_a = std::filesystem::path(a.model_path).filename().string(),
                    model_b = std::filesystem::path(b.model_path).filename().string();
  const bool named = model_a != model_b && !model_a.empty() && !model_b.empty();
  const std::string caption = "A: " + o.corpus + " (" + std::to_string(a.windows) + " windows); B: " + o.corpus_b +
                              " (" + std::to_string(b.windows) + " windows)";
  return compare_corpus_figure(o.figure, {*a.accumulator, *b.accumulator, named ? model_a : "A", named ? model_b : "B"},
                               figure_options(o, caption));
}

Figure text_result_figure(const FigureCommandOptions& o) {
  if (o.run.model.empty())
    throw Error("--model is needed to draw a figure of a text (or give --corpus FILE for figures 2, 3, 10, ...)");
  const auto [r, a] = run_and_analyze(o.run, o.analysis);
  char caption[256];
  std::snprintf(caption, sizeof caption, "%s, %s, tau %.3g, tau_sep %.3g", r.checkpoint->dir().filename().c_str(),
                count(r.run.encoding.size(), "token").c_str(), a.settings.tau, a.settings.tau_sep);
  StageProgress progress;  // a long text's figure makes its maps again: seconds
  progress.begin("drawing");
  return text_figure(o.figure, analyzed_text_view(r.run.encoding, r.run.captures, a, &r.checkpoint->model()),
                     figure_options(o, caption));
}

// Two runs: the models' names when they differ, else "text A" and "text B" (or "A" and "B": one text twice).
Figure compared_figure(const FigureCommandOptions& o) {
  if (o.run.model.empty()) throw Error("--model is needed to compare two runs");
  const auto runs = compare_runs(o.run, o.second, o.analysis);
  const std::string model_a = runs->a.result.checkpoint->dir().filename().string(),
                    model_b = runs->b.result.checkpoint->dir().filename().string();
  const bool two_models = runs->a.result.checkpoint->dir() != runs->b.result.checkpoint->dir();
  const bool two_texts = runs->a.result.text != runs->b.result.text;
  const auto text_view = [](const AnalyzedText& r) {  // a long text's maps made again by its model
    return analyzed_text_view(r.result.run.encoding, r.result.run.captures, r.analysis, &r.result.checkpoint->model());
  };
  const ComparedTextsView view{text_view(runs->a), text_view(runs->b), *runs->comparison,
                               two_models  ? model_a
                               : two_texts ? "text A"
                                           : "A",
                               two_models && model_b == model_a ? model_b + " (B)"
                               : two_models                     ? model_b
                               : two_texts                      ? "text B"
                                                                : "B"};
  char caption[512];
  std::snprintf(caption, sizeof caption, "A: %s, %s; B: %s, %s; tau %.3g", model_a.c_str(),
                count(runs->a.result.run.encoding.size(), "token").c_str(), model_b.c_str(),
                count(runs->b.result.run.encoding.size(), "token").c_str(), runs->a.analysis.settings.tau);
  const std::string grid = runs->comparison->shared_grid();
  StageProgress progress;
  progress.begin("drawing");
  return compare_figure(o.figure, view, figure_options(o, grid.empty() ? caption : caption + ("; " + grid)));
}

int run_figure(FigureCommandOptions o) {
  figure_format(o.out);  // a wrong extension is reported before the model runs
  // What the figure draws besides the analysis; the analysis's own needs are added by the pipeline.
  o.run.lenses = needs_lens_captures({}, {.norm = o.matrix == "norm" || o.layer_matrix == "norm",
                                          .rollout_of_norm = o.rollout_of_norm,
                                          .query_key = o.figure == "qk"});
  if (o.second.given() && !o.corpus.empty())
    throw Error("--corpus draws one corpus result; a second run (--model-b, --text-b) compares two texts");
  if (!o.corpus_b.empty() && o.corpus.empty()) throw Error("--corpus-b compares with --corpus: give both");
  const Figure figure = o.second.given()      ? compared_figure(o)
                        : !o.corpus_b.empty() ? compared_corpus_figure(o)
                        : o.corpus.empty()    ? text_result_figure(o)
                                              : corpus_result_figure(o);
  ExportOptions e;
  e.png_scale = o.png_scale;
  e.width = o.width;
  {
    StageProgress progress;  // a PNG of a long text's lines: seconds
    progress.begin("writing " + o.out);
    export_figure(figure, o.out, e);
  }
  std::fprintf(stderr, "wrote %s\n", o.out.c_str());
  return 0;
}

// What a figure's maps show and how they are coloured and sized.
void add_look_options(CLI::App& cmd, FigureCommandOptions& o) {
  cmd.add_option("--matrix", o.matrix,
                 "For head, grid: attention, similarity, cosine, norm (norm-based attention, Kobayashi et al. "
                 "2020) or rollout (Abnar and Zuidema 2020)")
      ->capture_default_str()
      ->check(CLI::IsMember({"attention", "similarity", "cosine", "norm", "rollout"}));
  cmd.add_option("--layer-matrix", o.layer_matrix,
                 "For 12 (layers): each layer's map: similarity (its heads' summed S, the paper's), attention, "
                 "cosine, norm or rollout (on a long text, every layer shown rolled out in one pass)")
      ->capture_default_str()
      ->check(CLI::IsMember({"attention", "similarity", "cosine", "norm", "rollout"}));
  cmd.add_option("--colormap", o.colormap, "viridis, magma or high-contrast (signed maps always use the diverging one)")
      ->capture_default_str()
      ->check(CLI::IsMember({"viridis", "magma", "diverging", "high-contrast"}));
  cmd.add_option("--scale", o.scale,
                 "Colour scale: linear, log, or clipped (linear up to the 99th percentile of each map)")
      ->capture_default_str()
      ->check(CLI::IsMember({"linear", "log", "clipped"}));
  cmd.add_option("--png-scale", o.png_scale, "Pixels per point of a PNG, 1 to 4")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 4.0));
  cmd.add_option("--width", o.width, "Figure width in points (default: from the number of panels)")
      ->check(CLI::Range(100.0, 20000.0));
}

}  // namespace

Action add_figure_command(CLI::App& app) {
  auto o = std::make_shared<FigureCommandOptions>();
  auto* cmd = app.add_subcommand(
      "figure",
      "Write one of the paper's figures as PNG, SVG or PDF: from a text (4, 5, 6, 7, 8, 9, 11, 12, 13, head, "
      "grid, lines, stats; qk: the query/key view of one head), from two runs compared (head, changed, stats; "
      "--model-b or --text-b) or from a saved corpus "
      "result (2, 3, 6, 7, 8, 10, 11, 13)");
  add_run_options(*cmd, o->run);
  cmd->get_option("--model")->required(false);
  add_second_run_options(*cmd, o->second);
  add_analysis_options(*cmd, o->analysis);
  add_long_text_options(*cmd, o->run);
  cmd->add_option(
         "--fig", o->figure,
         "Figure number of the paper, or head, grid, lines, stats; with a second run (--model-b, --text-b): "
         "head (A, B and B - A), changed (every head's change), stats (A's and B's bars), or 4, 5, 9, 12, 13, lines "
         "(A's figure beside B's)")
      ->required();
  cmd->add_option("--out", o->out, "Output file; .png, .svg or .pdf")->required();
  // Also by the explorer's names for the same files (attnscope --corpus-result).
  cmd->add_option("--corpus,--corpus-result", o->corpus,
                  "A corpus result (attnscope-cli corpus --out) to draw figures 2, 3, 6, 7, 8, 10, 11, 13 from");
  cmd->add_option("--corpus-b,--corpus-result-b", o->corpus_b,
                  "A second corpus result: the figure compares it with --corpus (distributions of A and B side "
                  "by side for 6, 7, 8, 11, 13; maps per text and B - A for 2, 3, 10)");
  cmd->add_option("--layer", o->layer, "Layer, numbered from 0 (default: the last)")->check(CLI::Range(-1, 1 << 16));
  cmd->add_option("--head", o->head, "Head, numbered from 0; -1: the layer's sum where a figure allows it")
      ->capture_default_str()
      ->check(CLI::Range(-1, 1 << 16));
  cmd->add_flag("--rollout-of-norm", o->rollout_of_norm,
                "With --matrix rollout: roll out the layers' norm-based maps instead of their mean attention");
  cmd->add_flag("--strongest", o->strongest_pairs,
                "Fig. 9: its table (40 rows) lists the head's strongest pairs, strongest first, rather than its "
                "first in the text");
  cmd->add_option("--query", o->query, "The query/key view (--fig qk): the querying token i")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--key", o->key, "The query/key view: the key j outlined (default: the one token i attends to most)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--layers", o->layers, "Layers shown side by side in figures 12 and 13 (default: all)")
      ->delimiter(',');
  cmd->add_option("--heads", o->heads,
                  "Attention lines (--fig lines): these heads of --layer together, one colour each, e.g. 0,3,7")
      ->delimiter(',');
  add_look_options(*cmd, *o);
  return [o] { return run_figure(*o); };
}

}  // namespace attnscope::cli
