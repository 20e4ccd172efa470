#include "corpus/corpus_run.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "corpus/window_stream.h"
#include "base/error.h"

namespace attnscope {

double CorpusProgress::fraction() const {
  if (max_windows) return std::min(1.0, static_cast<double>(windows) / static_cast<double>(max_windows));
  return bytes_total ? static_cast<double>(bytes_done) / static_cast<double>(bytes_total) : 0.0;
}

uint64_t shard_share(uint64_t windows, uint64_t index, uint64_t count) {
  return windows > index ? (windows - index + count - 1) / count : 0;
}

namespace {

void check_corpus_options(const Checkpoint& checkpoint, const CorpusOptions& o, const CorpusAccumulator& accumulator) {
  if (o.batch == 0) throw Error("the batch size must be at least 1");
  if (o.settings.separators_from != SeparatorInput::Attention || o.settings.pairs_from != PairInput::Similarity ||
      o.settings.words)
    throw Error(
        "a corpus run takes its pairs from S and its separators from the attention maps of word pieces, as METHOD.md "
        "does (the other matrices, lenses and words are views of one text)");
  if (o.shard_count == 0 || o.shard_index >= o.shard_count)
    throw Error("shard " + std::to_string(o.shard_index) + " of " + std::to_string(o.shard_count) +
                " does not exist (shards are 0 .. count - 1)");
  if (static_cast<int64_t>(o.window) != accumulator.window())
    throw Error("the window of " + std::to_string(o.window) + " tokens differs from the accumulators' " +
                std::to_string(accumulator.window()));
  const size_t positions = static_cast<size_t>(checkpoint.model().config().max_tokens());
  if (o.window > positions)
    throw Error("a window of " + std::to_string(o.window) + " tokens is more than the model's " +
                std::to_string(positions) + " positions");
}

// The input's windows that belong to one shard, in order, up to the run's limit of windows read.
class ShardWindows {
 public:
  ShardWindows(const Checkpoint& checkpoint, const CorpusOptions& o)
      : o_(o), reader_(o.input), windows_(reader_, checkpoint.tokenizer(), o.window) {}

  bool next(Encoding& out) {
    while (!o_.max_windows || read_ < o_.max_windows) {
      if (!windows_.next(out)) return false;
      if (read_++ % o_.shard_count == o_.shard_index) return true;
    }
    return false;
  }

  uint64_t documents() const { return windows_.documents(); }
  uint64_t bytes_done() const { return windows_.bytes_consumed(); }
  uint64_t bytes_total() const { return reader_.total_bytes(); }

 private:
  const CorpusOptions& o_;
  CorpusReader reader_;
  WindowStream windows_;
  uint64_t read_ = 0;  // windows read from the input, this shard's and the others'
};

// Adds the time since the last lap to one phase's seconds.
class PhaseClock {
 public:
  void lap(double& into) {
    const auto now = std::chrono::steady_clock::now();
    into += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

std::vector<TextAnalysis> analyze_batch(const std::vector<Encoding>& batch, const BatchCaptures& captures,
                                        const AnalysisSettings& settings) {
  std::vector<TextAnalysis> analyses(batch.size());
  const at::Tensor columns = column_attention(captures);  // [B, L, H, n]
  at::parallel_for(0, static_cast<int64_t>(batch.size()), 1, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const auto k = static_cast<size_t>(i);
      analyses[k] = analyze_text(batch[k], text_head_outputs(captures, k),
                                 columns[i].narrow(-1, 0, captures.lengths[k]), settings, {.to_host = false});
      analyses[k].similarity = {};  // not accumulated: freed at once, its memory is the next text's
    }
  });
  return analyses;
}

}  // namespace

CorpusOutcome run_corpus(const Checkpoint& checkpoint, const CorpusOptions& o, CorpusAccumulator& accumulator,
                         uint64_t skip, const CorpusProgressCallback& progress) {
  check_corpus_options(checkpoint, o, accumulator);
  ShardWindows windows(checkpoint, o);
  const auto start = std::chrono::steady_clock::now();
  CorpusOutcome outcome;
  Encoding e;
  while (outcome.windows < skip && windows.next(e)) ++outcome.windows;
  const uint64_t shard_limit = o.max_windows ? shard_share(o.max_windows, o.shard_index, o.shard_count) : 0;
  // At the end (`done`), all of the input was read and the windows run are all there were.
  const auto report = [&](bool done) {
    const CorpusProgress p{outcome.windows,
                           windows.documents(),
                           done ? windows.bytes_total() : windows.bytes_done(),
                           windows.bytes_total(),
                           done && o.max_windows ? outcome.windows : shard_limit,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
    return !progress || progress(p);
  };
  std::vector<Encoding> batch;
  PhaseClock clock;
  for (bool more = true; more;) {
    batch.clear();
    while (batch.size() < o.batch && windows.next(e)) batch.push_back(std::move(e));
    more = batch.size() == o.batch && (!shard_limit || outcome.windows + batch.size() < shard_limit);
    clock.lap(outcome.read_seconds);
    if (batch.empty()) break;
    std::vector<std::vector<int64_t>> ids;
    for (const Encoding& w : batch) ids.push_back(w.ids());
    // Nothing here reads the hidden states: the last layer stops at its head outputs.
    const BatchCaptures captures = checkpoint.model().forward(ids, {.last_layer = LastLayer::HeadOutputsOnly});
    clock.lap(outcome.forward_seconds);
    const std::vector<TextAnalysis> analyses = analyze_batch(batch, captures, o.settings);
    clock.lap(outcome.analysis_seconds);
    accumulator.add_batch(captures, analyses);
    clock.lap(outcome.accumulate_seconds);
    outcome.windows += batch.size();
    if (!report(false) && more) {
      outcome.documents = windows.documents();
      return outcome;  // stopped: incomplete, but everything added so far is consistent
    }
  }
  outcome.complete = true;
  outcome.documents = windows.documents();
  if (progress) report(true);
  return outcome;
}

}  // namespace attnscope
