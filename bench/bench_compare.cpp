// What comparing costs beyond the two analyses it compares: one model on two texts (the second
// text is the first with one word changed), each run tokenised, run and analysed, then
// compare_texts; and the same for two models on one text. Prints one JSON object: medians over
// --runs after warm-up of the two analyses alone and of the comparison alone, and their ratio.
// With --long-text both runs keep their queries and keys instead of their maps, as a long text
// does (the pipeline's run: the comparison makes the maps again a block of rows at a time), their
// pair masks kept up to --pair-mask-mib (pairs from a lens not kept are made again head by head).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

#include "compare/text_comparison.h"
#include "model/attention_rows.h"
#include "model/checkpoint.h"
#include "pipeline/text_pipeline.h"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Analysed {
  std::string text;
  attnscope::TextRun run;
  attnscope::TextAnalysis analysis;
  attnscope::ComparedRun view() const { return {run.encoding, text, run.captures, analysis}; }
  size_t tokens() const { return run.encoding.size(); }
};

Analysed analyse(const attnscope::Checkpoint& model, const std::string& text, size_t max_length) {
  Analysed a{text, model.run(text, max_length), {}};
  a.analysis = attnscope::analyze_text(a.run.encoding, a.run.captures, attnscope::AnalysisSettings{});
  return a;
}

// A long text's run through the pipeline (its maps not kept), and its view for compare_texts.
struct LongAnalysed {
  std::string text;
  std::shared_ptr<const attnscope::Checkpoint> model;
  attnscope::TextPipelineResult result;
  attnscope::ComparedRun view() const {
    attnscope::ComparedRun out{result.encoding, text, result.captures, result.analysis};
    out.attention_blocks = attnscope::recomputed_attention_blocks(model->model(), result.captures);
    return out;
  }
  size_t tokens() const { return result.encoding.size(); }
};

LongAnalysed long_analyse(const std::shared_ptr<const attnscope::Checkpoint>& model, const std::string& text,
                          const attnscope::TextPipelineOptions& options) {
  attnscope::TextPipeline pipeline(model, "");
  return {text, model, pipeline.run(text, options)};
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnscope compare benchmark"};
  std::string model, model_b, text_file;
  size_t max_length = 128;
  int runs = 10, threads = 0, warmup = 3;
  bool long_text = false;
  std::string pairs_from = "similarity";
  double pair_mask_mib = 0;
  app.add_option("--model", model, "Checkpoint folder")->required();
  app.add_option("--model-b", model_b, "A second checkpoint: compare two models on one text instead of two texts");
  app.add_option("--text-file", text_file, "Text to run (truncated to --max-len)")->required();
  app.add_option("--max-len", max_length)->capture_default_str();
  app.add_option("--runs", runs)->capture_default_str();
  app.add_option("--warmup", warmup)->capture_default_str();
  app.add_option("--threads", threads);
  app.add_flag("--long-text", long_text, "Both runs keep queries and keys, not maps, as a long text does");
  app.add_option("--pairs-from", pairs_from, "With --long-text: the matrix the pairs come from")->capture_default_str();
  app.add_option("--pair-mask-mib", pair_mask_mib, "With --long-text: MiB of pair masks each run keeps")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (threads > 0) at::set_num_threads(threads);

  std::ifstream in(text_file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text_a = buffer.str();
  std::string text_b = text_a;
  if (model_b.empty()) text_b.replace(text_b.find(' ') + 1, 0, "old ");  // one more word near the start
  const auto a_model = attnscope::Checkpoint::load(model, {});
  const auto b_model = model_b.empty() ? a_model : attnscope::Checkpoint::load(model_b, {});

  attnscope::TextPipelineOptions options;
  options.max_length = max_length;
  options.long_texts = attnscope::CapturePlan{.maps_up_to = 1};
  const auto from = attnscope::pair_input_by_name(pairs_from);
  if (!from) {
    std::cerr << "bench_compare: no matrix named " << pairs_from << "\n";
    return 2;
  }
  options.settings.pairs_from = *from;
  options.long_pair_mask_bytes = static_cast<uint64_t>(pair_mask_mib * (1 << 20));
  std::vector<double> analyses, comparisons;
  size_t tokens = 0;
  // One round: both texts analysed (`both` returns the pair), then compared, each timed.
  const auto round = [&](bool kept, const auto& both) {
    const Clock::time_point start = Clock::now();
    const auto [a, b] = both();
    const double analysed = ms_since(start);
    const Clock::time_point compare_start = Clock::now();
    attnscope::compare_texts(a.view(), b.view(), {!model_b.empty()});
    if (kept) analyses.push_back(analysed), comparisons.push_back(ms_since(compare_start));
    tokens = a.tokens();
  };
  for (int r = -warmup; r < runs; ++r) {
    if (long_text)
      round(r >= 0, [&] {
        return std::pair{long_analyse(a_model, text_a, options), long_analyse(b_model, text_b, options)};
      });
    else
      round(r >= 0, [&] {
        return std::pair{analyse(*a_model, text_a, max_length), analyse(*b_model, text_b, max_length)};
      });
  }
  const double analysis_ms = median(analyses), compare_ms = median(comparisons);
  std::cout << nlohmann::json{{"mode", model_b.empty() ? "two texts" : "two models"},
                              {"long_text", long_text},
                              {"pairs_from", pairs_from},
                              {"pair_mask_mib", pair_mask_mib},
                              {"tokens", tokens},
                              {"two_analyses_ms", analysis_ms},
                              {"compare_ms", compare_ms},
                              {"overhead", compare_ms / analysis_ms}}
                   .dump()
            << "\n";
  return 0;
}
