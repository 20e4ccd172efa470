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

CorpusOutcome run_corpus(const Checkpoint& checkpoint, const CorpusOptions& o, CorpusAccumulator& accumulator,
                         uint64_t skip, const CorpusProgressCallback& progress) {
  if (o.batch == 0) throw Error("the batch size must be at least 1");
  if (o.settings.separators_from != SeparatorInput::Attention || o.settings.pairs_from != PairInput::Similarity ||
      o.settings.words)
    throw Error(
        "a corpus run takes its pairs from S and its separators from the attention maps of word pieces, as METHOD.md "
        "does "
        "(the other matrices, lenses and words are views of one text)");
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

  CorpusReader reader(o.input);
  WindowStream windows(reader, checkpoint.tokenizer(), o.window);
  const auto start = std::chrono::steady_clock::now();
  CorpusOutcome outcome;
  Encoding e;
  uint64_t read = 0;  // windows read from the input, this shard's and the others'
  const auto next_of_shard = [&](Encoding& out) {
    while (!o.max_windows || read < o.max_windows) {
      if (!windows.next(out)) return false;
      if (read++ % o.shard_count == o.shard_index) return true;
    }
    return false;
  };
  while (outcome.windows < skip && next_of_shard(e)) ++outcome.windows;
  const uint64_t shard_limit = o.max_windows ? shard_share(o.max_windows, o.shard_index, o.shard_count) : 0;

  const auto report = [&] {
    CorpusProgress p{outcome.windows,
                     windows.documents(),
                     windows.bytes_consumed(),
                     reader.total_bytes(),
                     shard_limit,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
    return !progress || progress(p);
  };
  std::vector<Encoding> batch;
  bool more = true;
  auto lap = std::chrono::steady_clock::now();
  const auto split = [&lap](double& into) {
    const auto now = std::chrono::steady_clock::now();
    into += std::chrono::duration<double>(now - lap).count();
    lap = now;
  };
  while (more) {
    batch.clear();
    while (batch.size() < o.batch && next_of_shard(e)) batch.push_back(std::move(e));
    more = batch.size() == o.batch && (!shard_limit || outcome.windows + batch.size() < shard_limit);
    split(outcome.read_seconds);
    if (batch.empty()) break;
    std::vector<std::vector<int64_t>> ids;
    for (const Encoding& w : batch) ids.push_back(w.ids());
    // Nothing here reads the hidden states: the last layer stops at its head outputs.
    const BatchCaptures captures = checkpoint.model().forward(ids, {.last_layer = LastLayer::HeadOutputsOnly});
    split(outcome.forward_seconds);
    std::vector<TextAnalysis> analyses(batch.size());
    const at::Tensor columns = column_attention(captures);  // [B, L, H, n]
    at::parallel_for(0, static_cast<int64_t>(batch.size()), 1, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        const auto k = static_cast<size_t>(i);
        analyses[k] = analyze_text(batch[k], text_head_outputs(captures, k),
                                   columns[i].narrow(-1, 0, captures.lengths[k]), o.settings, {.to_host = false});
        analyses[k].similarity = {};  // not accumulated: freed at once, its memory is the next text's
      }
    });
    split(outcome.analysis_seconds);
    accumulator.add_batch(captures, analyses);
    split(outcome.accumulate_seconds);
    outcome.windows += batch.size();
    if (!report() && more) {
      outcome.documents = windows.documents();
      return outcome;  // stopped: incomplete, but everything added so far is consistent
    }
  }
  outcome.complete = true;
  outcome.documents = windows.documents();
  if (progress) {  // the end: all of the input
    CorpusProgress p{
        outcome.windows,      outcome.documents,
        reader.total_bytes(), reader.total_bytes(),
        shard_limit,          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
    if (o.max_windows) p.max_windows = outcome.windows;
    progress(p);
  }
  return outcome;
}

}  // namespace attnscope
