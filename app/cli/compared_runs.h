#pragma once
// The second run of `compare` and of `figure` with two runs: --model-b and/or --text-b /
// --file-b, and the two analysed runs with their comparison.
#include <memory>
#include <string>

#include "compare/text_comparison.h"
#include "run_options.h"

namespace attnscope::cli {

struct SecondRunOptions {
  std::string model;
  TextInput input;
  bool given() const { return !model.empty() || !input.text.empty() || !input.file.empty(); }
};

void add_second_run_options(CLI::App& cmd, SecondRunOptions& o);

struct ComparedTexts {
  AnalyzedText a, b;
  RunOptions run_b;                            // the first run's options with the second's model and text
  std::unique_ptr<TextComparison> comparison;  // reads a and b: kept beside them, never copied
  // A long text's maps are made again by the model that ran it.
  ComparedRun view_a() const { return view(a); }
  ComparedRun view_b() const { return view(b); }
  static ComparedRun view(const AnalyzedText& r);
};

// Runs and analyses both texts and compares them; throws attnscope::Error (also when no second
// run is given).
std::unique_ptr<ComparedTexts> compare_runs(const RunOptions& run, const SecondRunOptions& second,
                                            const AnalysisOptions& analysis);

}  // namespace attnscope::cli
