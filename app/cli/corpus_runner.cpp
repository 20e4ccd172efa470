#include "corpus_runner.h"

#include <atomic>
#include <csignal>
#include <cstdio>

#include "base/error.h"
#include "base/error_message.h"
#include "corpus/run_fingerprint.h"
#include "corpus/window_stream.h"
#include "progress_line.h"
#include "results/analysis_json.h"
#include "results/corpus_csv.h"
#include "shard_option.h"

namespace attnscope::cli {
namespace {

std::atomic<bool> g_stop{false};

void on_interrupt(int) {
  g_stop = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the program at once
}

// The corpus run's progress: windows, documents, rate and time left.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(uint64_t resumed) : line_("corpus"), resumed_(resumed) {}
  bool operator()(const CorpusProgress& p) {
    const double f = p.fraction();
    const double rate = p.seconds > 0 ? static_cast<double>(p.windows - resumed_) / p.seconds : 0;
    const double run_fraction = f - start_fraction(p);
    const double left = run_fraction > 0 ? p.seconds * (1 - f) / run_fraction : 0;
    char text[160];
    std::snprintf(text, sizeof text, "%s, %s  %.1f windows/s  %s left", count(p.windows, "window").c_str(),
                  count(p.documents, "document").c_str(), rate, duration(left).c_str());
    line_.update(f, p.seconds, text);
    return !g_stop;
  }
  void finish() const { line_.finish(); }

 private:
  double start_fraction(const CorpusProgress& p) {
    if (first_ < 0) first_ = p.max_windows ? static_cast<double>(resumed_) / static_cast<double>(p.max_windows) : 0.0;
    return first_;
  }
  ProgressLine line_;
  uint64_t resumed_;
  double first_ = -1;
};

}  // namespace

CorpusFile new_corpus_file(const CorpusCommandOptions& o, const Checkpoint& checkpoint, const ComputeDevice& device) {
  CorpusOptions options{o.input, o.model.max_length ? o.model.max_length : checkpoint.default_max_length(), o.batch,
                        o.max_windows, analysis_settings(o.analysis)};
  const Shard shard = o.shard.empty() ? Shard{} : parse_shard(o.shard);
  options.shard_index = shard.index;
  options.shard_count = shard.count;
  const auto& config = checkpoint.model().config();
  return {o.model.model,
          config.to_json(),
          input_fingerprint(o.input),
          model_fingerprint(checkpoint.dir()),
          device.describe(),
          options,
          true,
          0,
          0,
          pieces_per_window(checkpoint.tokenizer(), options.window),
          std::make_shared<CorpusAccumulator>(config.num_layers, config.num_heads, static_cast<int64_t>(options.window),
                                              device.device)};
}

bool same_corpus_run(const CorpusFile& saved, const CorpusFile& fresh) {
  const CorpusOptions &a = saved.options, &b = fresh.options;
  return saved.model_config == fresh.model_config && a.input == b.input && a.window == b.window &&
         saved.window_pieces == fresh.window_pieces && settings_to_json(a.settings) == settings_to_json(b.settings) &&
         a.shard_index == b.shard_index && a.shard_count == b.shard_count &&
         saved.input_fingerprint == fresh.input_fingerprint && saved.model_fingerprint == fresh.model_fingerprint;
}

CorpusOutcome run_and_save_corpus(const CorpusCommandOptions& o, const Checkpoint& checkpoint, CorpusFile& file) {
  g_stop = false;
  std::signal(SIGINT, on_interrupt);
  ProgressPrinter printer(file.windows);
  uint64_t reported = file.windows;  // windows in the accumulators when the last batch was reported
  CorpusOutcome outcome;
  try {
    outcome = run_corpus(checkpoint, file.options, *file.accumulator, file.windows, [&](const CorpusProgress& p) {
      reported = p.windows;
      return printer(p);
    });
  } catch (const Error& e) {
    printer.finish();
    std::signal(SIGINT, SIG_DFL);
    if (reported == file.windows) throw;
    // Keep what was done: the batches before the failure are whole and consistent.
    file.windows = reported;
    save_corpus(o.out, file);
    throw Error(error_message(e) + " (the " + std::to_string(reported) + " windows done before it are saved in " +
                o.out + "; --resume continues from there)");
  }
  printer.finish();
  std::signal(SIGINT, SIG_DFL);
  std::fprintf(stderr, "time: %.1f s forward passes, %.1f s analysis, %.1f s accumulators, %.1f s reading the input\n",
               outcome.forward_seconds, outcome.analysis_seconds, outcome.accumulate_seconds, outcome.read_seconds);
  file.partial = !outcome.complete;
  file.windows = outcome.windows;
  file.documents = outcome.documents;
  save_corpus_shown(o.out, file);
  return outcome;
}

CorpusFile load_corpus_shown(const std::string& path) {
  StageProgress progress;
  progress.begin("reading " + path);
  return load_corpus(path);
}

void save_corpus_shown(const std::string& out, const CorpusFile& file) {
  StageProgress progress;
  save_corpus(out, file, progress.report());
}

void write_corpus_csv_shown(const std::string& folder, CorpusAccumulator& accumulator) {
  StageProgress progress;
  progress.begin("writing the tables in " + folder);
  write_corpus_csv(folder, accumulator);
}

}  // namespace attnscope::cli
