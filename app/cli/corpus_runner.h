#pragma once
// A corpus run as the commands make it (`corpus`, and `report` for each model): the result file
// it fills, the check that a saved file is the same run, and the run itself with its progress line
// and Ctrl-C, saving what was done even when it fails.
#include <string>

#include "base/count_text.h"
#include "corpus/corpus_run.h"
#include "results/corpus_json.h"
#include "run_options.h"

namespace attnscope::cli {

struct CorpusCommandOptions {
  RunOptions model;
  AnalysisOptions analysis;
  std::string input;
  size_t batch = 8;
  uint64_t max_windows = 0;
  std::string out = "corpus-result.json";
  std::string csv;
  std::string shard;
  bool resume = false;
};

// The empty result of the run `o` asks for, with the fingerprints of its input and model.
CorpusFile new_corpus_file(const CorpusCommandOptions& o, const Checkpoint& checkpoint, const ComputeDevice& device);
// Whether `saved` was made with the same model, input, window, shard and settings as `fresh` (its
// limit of windows may differ: a resumed run may go further).
bool same_corpus_run(const CorpusFile& saved, const CorpusFile& fresh);
// Runs the windows not yet in `file` and saves it in o.out (on failure: the batches done before
// it, then throws). Sets file.partial when Ctrl-C stopped it.
CorpusOutcome run_and_save_corpus(const CorpusCommandOptions& o, const Checkpoint& checkpoint, CorpusFile& file);

// load_corpus, save_corpus and write_corpus_csv with their stage shown (a corpus result of 50 MB: a second).
CorpusFile load_corpus_shown(const std::string& path);
void save_corpus_shown(const std::string& out, const CorpusFile& file);
void write_corpus_csv_shown(const std::string& folder, CorpusAccumulator& accumulator);

}  // namespace attnscope::cli
