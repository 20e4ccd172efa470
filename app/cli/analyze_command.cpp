#include <chrono>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "commands.h"
#include "pipeline/text_head_roles.h"
#include "results/head_roles_json.h"
#include "results/analysis_json.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "results/text_run_file.h"
#include "progress_line.h"
#include "run_options.h"

namespace attnscope::cli {
namespace {

struct AnalyzeOptions {
  RunOptions run;
  AnalysisOptions analysis;
  std::string out;
  std::string encoding = "base64";
  std::string format = "auto";
  std::string captures = "all";
  double max_size_gb = kDefaultResultLimitBytes / 1e9;
};

void print_summary(const TextResult& r, const TextAnalysis& a, double seconds, const std::string& saved_to) {
  const Encoding& e = r.run.encoding;
  std::printf("model    %s\ndevice   %s\ntokens   %zu", r.checkpoint->dir().c_str(), r.device.describe().c_str(),
              e.size());
  if (e.truncated) std::printf(" (the text has %zu; --max-len %zu kept the first)", e.full_length, r.max_length);
  size_t pairs = 0;
  for (const HeadAnalysis& h : a.heads) pairs += static_cast<size_t>(h.pair_count);
  if (r.run.captures.attention.defined())
    std::printf("\ncaptured %lld layers x %lld heads: attention %zu x %zu, head outputs %zu x %lld\n",
                static_cast<long long>(a.num_layers), static_cast<long long>(a.num_heads), e.size(), e.size(), e.size(),
                static_cast<long long>(r.run.captures.head_dim));
  else  // a long text (--maps-up-to)
    std::printf(
        "\ncaptured %lld layers x %lld heads: queries, keys and head outputs %zu x %lld (the %zu x %zu maps "
        "recomputed when needed)\n",
        static_cast<long long>(a.num_layers), static_cast<long long>(a.num_heads), e.size(),
        static_cast<long long>(r.run.captures.head_dim), e.size(), e.size());
  std::printf(
      "analysis %zu high-similarity pairs over all heads (tau %.3g), %zu segments, %d sentences\ntime     %.1f ms\n",
      pairs, a.settings.tau, a.segments.size(), a.sentence_count(), seconds * 1e3);
  if (saved_to.empty())
    std::printf("(give --out FILE.safetensors to save the attention maps, head outputs and analysis)\n");
  else
    std::printf("saved    %s\n", saved_to.c_str());
}

// The result file of a run, its head roles not yet made (add_head_roles).
TextRunFile result_file(const std::string& model, const TextResult& r) {
  TextRunFile file;
  file.model_path = model;
  file.model_config = r.checkpoint->model().config().to_json();
  file.device = r.device.describe();
  file.text = r.text;
  file.max_length = r.max_length;
  file.run = r.run;
  return file;
}

// The roles are written, not summed up (the summary alone skips them: a long text's take minutes).
void add_head_roles(TextRunFile& file, const AnalyzedText& analyzed) {
  if (analyzed.analysis.settings.words) return;  // roles read token ids and positions: pieces, not words
  const TextResult& r = analyzed.result;
  StageProgress progress;
  TextHeadRolesOptions probe;  // induction left undefined where the probe and its template do not fit
  probe.induction = r.checkpoint->model().config().max_tokens() >= 2 * probe.induction_period + 2;
  probe.progress = progress.report();
  file.head_roles = head_roles_to_json(text_head_roles(*r.checkpoint, r.run, probe), {}, probe.induction_period);
}

ResultWriteOptions write_options(const AnalyzeOptions& o) {
  ResultWriteOptions write;
  write.captures = capture_set_by_name(o.captures);
  write.limit_bytes = o.max_size_gb * 1e9;
  write.decimal = o.encoding == "decimal";
  const bool json_named = std::filesystem::path(o.out).extension() == ".json";
  write.container =
      o.format == "json" || (o.format == "auto" && json_named) ? ResultContainer::Json : ResultContainer::Binary;
  return write;
}

int run_analyze(const AnalyzeOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  RunOptions run = o.run;
  run.keep_pair_masks = !o.out.empty() || !isatty(STDOUT_FILENO);  // a result is written, not the summary alone
  ResultWriteOptions write = write_options(o);
  // A result it could not write is refused before the forward, not after a run of hours. A run on
  // words keeps fewer tokens than it encodes: its size is checked after it, as every result's is,
  // and its capture set before it.
  if (run.keep_pair_masks && !o.analysis.words)
    run.before_forward = [&write](const PlannedRun& p) {
      const bool maps = p.kept == KeptAttention::Maps;
      ResultWriteOptions planned = write;
      planned.captures = written_captures(write.captures, maps);
      check_planned_result({p.config, p.tokens, maps, p.lenses, true}, planned);
    };
  else if (run.keep_pair_masks && write.captures != CaptureSet::All)  // "all" on a long text's words: "none"
    run.before_forward = [&write](const PlannedRun& p) {
      if (p.kept != KeptAttention::Maps) require_captures_of_long_words(write.captures);
    };
  const AnalyzedText analyzed = run_and_analyze(run, o.analysis);
  const TextResult& r = analyzed.result;  // named, not structured bindings: lambdas capture them (clang 14)
  const TextAnalysis& analysis = analyzed.analysis;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  TextRunFile file = result_file(o.run.model, r);
  write.captures = written_captures(write.captures, r.run.captures);
  if (run.keep_pair_masks) {
    // Its size now that the pairs are counted: refused before the head roles, which take minutes on
    // a long text (and before the pairs' values are found again to be written).
    check_text_run_size(file, &analysis, write);
    add_head_roles(file, analyzed);
  }
  const bool to_file = !o.out.empty() && o.out != "-";
  if (to_file) {
    {
      StageProgress progress;  // a gigabyte at 2,048 tokens (the maps)
      write.progress = progress.report();
      save_text_run(o.out, file, &analysis, write);
    }
    print_summary(r, analysis, seconds, o.out);
    if (write.container == ResultContainer::Json && write.captures != CaptureSet::None)
      std::fprintf(
          stderr,
          "note: JSON keeps the matrices as text, a third larger and slower to write; a name ending in .safetensors "
          "(or --format binary) gives the compact binary result\n");
  } else if (o.out == "-" || !isatty(STDOUT_FILENO)) {
    write_text_run_json(std::cout, file, &analysis, write);
  } else {
    print_summary(r, analysis, seconds, "");
  }
  return 0;
}

}  // namespace

Action add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  auto* cmd = app.add_subcommand(
      "analyze",
      "Run the model (an encoder or a decoder) on a text: for every layer and head the attention map A, the head "
      "outputs C = A V, and the paper's analysis (pairs, separators, statistics); format in docs/result-format.md");
  add_run_options(*cmd, o->run);
  add_long_text_options(*cmd, o->run);
  add_analysis_options(*cmd, o->analysis, "--matrix,--pairs-from");
  cmd->add_option(
      "--out", o->out,
      "Write the result here (atomically): the compact binary form (safetensors layout; Python's safetensors "
      "opens it), or JSON when the name ends in .json; '-' for JSON on standard output. Without it, JSON goes "
      "to standard output when that is not a terminal, and a summary is printed when it is");
  cmd->add_option("--format", o->format, "auto (JSON for a .json name, else binary), binary or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "binary", "json"}));
  cmd->add_flag(
      "--lenses", o->run.lenses,
      "Also keep the lenses (docs/lenses.md): each head's value norms |f_h(x_j)|, each layer's norm-based map and "
      "rollout, and the queries and keys (written with the captures)");
  cmd->add_option("--captures", o->captures,
                  "Which matrices the result keeps: all (attention maps and head outputs; for a text past "
                  "--maps-up-to, queries-keys), attention, none (the analysis only), or queries-keys (the queries "
                  "and keys every map is made again from, the maps' column sums and the head outputs: a long "
                  "text's, or with --lenses)")
      ->capture_default_str()
      ->check(CLI::IsMember({"all", "attention", "none", "queries-keys"}));
  cmd->add_option("--max-size", o->max_size_gb,
                  "Refuse a result whose tensors would take more than this many GB, saying how much it needs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--encoding", o->encoding,
                  "JSON only: tensors as base64 (float32, exact, compact) or decimal (lists of numbers)")
      ->capture_default_str()
      ->check(CLI::IsMember({"base64", "decimal"}));
  return [o] { return run_analyze(*o); };
}

}  // namespace attnscope::cli
