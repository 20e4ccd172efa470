#include "compared_runs.h"

#include "base/error.h"
#include "progress_line.h"

namespace attnscope::cli {

void add_second_run_options(CLI::App& cmd, SecondRunOptions& o) {
  cmd.add_option("--model-b", o.model, "The second model (folder or cached id); default: --model");
  cmd.add_option("--text-b", o.input.text, "The second text; default: the first");
  cmd.add_option("--file-b", o.input.file, "A UTF-8 file to read the second text from");
}

ComparedRun ComparedTexts::view(const AnalyzedText& r) {
  const TextRun& run = r.result.run;
  ComparedRun out{run.encoding, r.result.text, run.captures, r.analysis};
  if (run.captures.remakes_maps())
    out.attention_blocks = recomputed_attention_blocks(r.result.checkpoint->model(), run.captures);
  return out;
}

std::unique_ptr<ComparedTexts> compare_runs(const RunOptions& run, const SecondRunOptions& second,
                                            const AnalysisOptions& analysis) {
  if (!second.given()) throw Error("a comparison needs a second run: --model-b, or --text-b / --file-b (or both)");
  auto out = std::make_unique<ComparedTexts>();
  // Pairs from a lens: a long text's masks kept for the Jaccard indices (S's pairs are counted in
  // the rows the comparison reads; a lens's mask would be made again from its map, head by head).
  const PairInput from = analysis_settings(analysis).pairs_from;
  RunOptions a = run;
  a.keep_pair_masks |= pairs_from_a_map(from);
  out->a = run_and_analyze(a, analysis);
  out->run_b = a;
  if (!second.model.empty()) out->run_b.model = second.model;
  if (!second.input.text.empty() || !second.input.file.empty()) out->run_b.input = second.input;
  const bool one_model = out->run_b.model == a.model;  // opened once
  out->b = run_and_analyze(out->run_b, analysis, one_model ? out->a.result.checkpoint : nullptr);
  CompareSettings settings;
  settings.match_heads = !second.model.empty();  // one model on two texts keeps its heads' identity
  StageProgress progress;                        // a long text's maps made again: minutes at 8,192 tokens
  settings.progress = progress.report();
  out->comparison = std::make_unique<TextComparison>(compare_texts(out->view_a(), out->view_b(), settings));
  return out;
}

}  // namespace attnscope::cli
