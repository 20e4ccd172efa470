#pragma once
// A corpus run: the corpus cut into windows, run in batches on the model's device, every text
// analysed and added to the accumulators. Progress and cancellation go through a callback that
// returns false to stop after the current batch; what was accumulated so far stays valid.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>

#include "analysis/analysis_settings.h"
#include "corpus/corpus_accumulator.h"
#include "model/checkpoint.h"

namespace attnscope {

struct CorpusOptions {
  std::filesystem::path input;
  size_t window = 128;       // N: tokens per window, [CLS] and [SEP] included
  size_t batch = 8;          // windows per forward pass
  uint64_t max_windows = 0;  // stop after this many windows in all (0: the whole corpus)
  AnalysisSettings settings;
  // A shard runs the windows whose number (in the input's order, counted before any limit of
  // max_windows is reached) leaves remainder shard_index when divided by shard_count: the same
  // windows on any machine, every window in exactly one shard, and the shards balanced.
  uint64_t shard_index = 0, shard_count = 1;
};

// The windows shard `index` of `count` runs among the first `windows` of the input.
uint64_t shard_share(uint64_t windows, uint64_t index, uint64_t count);

struct CorpusProgress {
  uint64_t windows = 0;                      // done (of this shard), counting those of an earlier, resumed run
  uint64_t documents = 0;                    // started so far
  uint64_t bytes_done = 0, bytes_total = 0;  // of the input: up to the end of the last window done
  uint64_t max_windows = 0;                  // of this shard, when the run has a limit
  double seconds = 0;                        // of this run
  double fraction() const;                   // of the whole job, from windows (with a limit) or bytes
};

using CorpusProgressCallback = std::function<bool(const CorpusProgress&)>;

struct CorpusOutcome {
  bool complete = false;  // false: stopped by the callback before the end
  uint64_t windows = 0;
  uint64_t documents = 0;
  // Where this run's time went (seconds): reading and cutting windows, the forward, the per-text
  // analysis, adding to the accumulators. For the benchmark and for users who tune batch sizes.
  double read_seconds = 0, forward_seconds = 0, analysis_seconds = 0, accumulate_seconds = 0;
};

// Runs this shard's windows from its number `skip` on (the first `skip` are read but not run
// again: a resumed run), adding each to `accumulator`. Throws attnscope::Error on unreadable input.
CorpusOutcome run_corpus(const Checkpoint& checkpoint, const CorpusOptions& options, CorpusAccumulator& accumulator,
                         uint64_t skip = 0, const CorpusProgressCallback& progress = {});

}  // namespace attnscope
