#include <chrono>
#include <iostream>
#include <unistd.h>

#include "commands.h"
#include "io/analysis_json.h"
#include "io/atomic_file.h"
#include "io/result_json.h"
#include "run_options.h"

namespace attnscope::cli {
namespace {

struct AnalyzeOptions {
  RunOptions run;
  AnalysisOptions analysis;
  std::string out;
  std::string encoding = "base64";
};

void print_summary(const TextResult& r, const TextAnalysis& a, double seconds, const std::string& saved_to) {
  const Encoding& e = r.run.encoding;
  std::printf("model    %s\ndevice   %s\ntokens   %zu", r.checkpoint->dir().c_str(), r.device.describe().c_str(), e.size());
  if (e.truncated) std::printf(" (the text has %zu; --max-len %zu kept the first)", e.full_length, r.max_length);
  size_t pairs = 0;
  for (const HeadAnalysis& h : a.heads) pairs += h.pairs.size();
  std::printf("\ncaptured %lld layers x %lld heads: attention %zu x %zu, head outputs %zu x %lld\n",
              static_cast<long long>(a.num_layers), static_cast<long long>(a.num_heads), e.size(), e.size(), e.size(),
              static_cast<long long>(r.run.captures.head_dim));
  std::printf("analysis %zu high-similarity pairs over all heads (tau %.3g), %zu segments, %d sentences\ntime     %.1f ms\n", pairs,
              a.settings.tau, a.segments.size(), a.sentence_count(), seconds * 1e3);
  if (saved_to.empty())
    std::printf("(give --out FILE.json to save the attention maps, head outputs and analysis)\n");
  else
    std::printf("saved    %s\n", saved_to.c_str());
}

int run_analyze(const AnalyzeOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const AnalyzedText analyzed = run_and_analyze(o.run, o.analysis);
  const TextResult& r = analyzed.result;  // named, not structured bindings: lambdas capture them (clang 14)
  const TextAnalysis& analysis = analyzed.analysis;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const TextRunFile file{o.run.model, r.checkpoint->model().config().to_json(), r.device.describe(), r.text, r.max_length, r.run};
  const auto json = [&] {
    nlohmann::json j = text_run_to_json(file, o.encoding == "decimal" ? MatrixEncoding::Decimal : MatrixEncoding::Base64);
    j["analysis"] = analysis_to_json(analysis, r.run.encoding);
    return j;
  };
  if (!o.out.empty() && o.out != "-") {
    write_file_atomically(o.out, json().dump() + "\n");
    print_summary(r, analysis, seconds, o.out);
  } else if (o.out == "-" || !isatty(STDOUT_FILENO)) {
    std::cout << json().dump() << "\n";
  } else {
    print_summary(r, analysis, seconds, "");
  }
  return 0;
}

}  // namespace

Action add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  auto* cmd = app.add_subcommand("analyze",
                                 "Run BERT on a text: for every layer and head the attention map A, the head outputs C = A V, "
                                 "and the paper's analysis (pairs, separators, statistics); format in docs/result-format.md");
  add_run_options(*cmd, o->run);
  add_analysis_options(*cmd, o->analysis);
  cmd->add_option("--out", o->out,
                  "Write the result JSON here (atomically); '-' for standard output. Without it, JSON goes to standard "
                  "output when that is not a terminal, and a summary is printed when it is");
  cmd->add_option("--encoding", o->encoding, "How matrices are stored: base64 (float32, exact, compact) or decimal (nested lists)")
      ->capture_default_str()
      ->check(CLI::IsMember({"base64", "decimal"}));
  return [o] { return run_analyze(*o); };
}

}  // namespace attnscope::cli
