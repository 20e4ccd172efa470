#include <atomic>
#include <csignal>
#include <cstdio>
#include <unistd.h>

#include "commands.h"
#include "progress_line.h"
#include "corpus/allocator_tuning.h"
#include "corpus/run_fingerprint.h"
#include "base/error.h"
#include "results/analysis_json.h"
#include "results/corpus_csv.h"
#include "results/corpus_json.h"
#include "run_options.h"
#include "shard_option.h"

namespace attnscope::cli {
namespace {

std::atomic<bool> g_stop{false};

void on_interrupt(int) {
  g_stop = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the program at once
}

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

std::string count(uint64_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

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

// --resume: the saved partial run's sums and windows taken over; false when it is already complete.
// Throws when it was made with another model, input, window, shard or settings.
bool resume_from(const std::string& out, CorpusFile& file) {
  CorpusFile saved = load_corpus(out);
  const CorpusOptions& options = file.options;
  if (saved.model_config != file.model_config || saved.options.input != options.input ||
      saved.options.window != options.window ||
      settings_to_json(saved.options.settings) != settings_to_json(options.settings) ||
      saved.options.shard_index != options.shard_index || saved.options.shard_count != options.shard_count ||
      saved.input_fingerprint != file.input_fingerprint || saved.model_fingerprint != file.model_fingerprint)
    throw Error(
        out +
        ": was made with another model, input, window, shard or analysis settings; run without --resume to start anew");
  if (!saved.partial) {
    std::printf("%s is already complete (%llu windows); nothing to resume\n", out.c_str(),
                static_cast<unsigned long long>(saved.windows));
    return false;
  }
  file.accumulator = saved.accumulator;
  file.windows = saved.windows;
  std::fprintf(stderr, "resuming after %llu windows\n", static_cast<unsigned long long>(saved.windows));
  return true;
}

int run_corpus_command(const CorpusCommandOptions& o) {
  keep_freed_memory_for_reuse();
  ComputeDevice device;
  const auto checkpoint = load_checkpoint(o.model, device);
  CorpusOptions options{o.input, o.model.max_length ? o.model.max_length : checkpoint->default_max_length(), o.batch,
                        o.max_windows, analysis_settings(o.analysis)};
  const Shard shard = o.shard.empty() ? Shard{} : parse_shard(o.shard);
  options.shard_index = shard.index;
  options.shard_count = shard.count;
  const auto& config = checkpoint->model().config();
  CorpusFile file{o.model.model,
                  config.to_json(),
                  input_fingerprint(o.input),
                  model_fingerprint(checkpoint->dir()),
                  device.describe(),
                  options,
                  true,
                  0,
                  0,
                  std::make_shared<CorpusAccumulator>(config.num_layers, config.num_heads,
                                                      static_cast<int64_t>(options.window), device.device)};
  if (o.resume && !resume_from(o.out, file)) return 0;

  g_stop = false;
  std::signal(SIGINT, on_interrupt);
  ProgressPrinter printer(file.windows);
  uint64_t reported = file.windows;  // windows in the accumulators when the last batch was reported
  CorpusOutcome outcome;
  try {
    outcome = run_corpus(*checkpoint, options, *file.accumulator, file.windows, [&](const CorpusProgress& p) {
      reported = p.windows;
      return printer(p);
    });
  } catch (const Error& e) {
    printer.finish();
    if (reported == file.windows) throw;
    // Keep what was done: the batches before the failure are whole and consistent.
    file.windows = reported;
    save_corpus(o.out, file);
    throw Error(std::string(e.what()) + " (the " + std::to_string(reported) + " windows done before it are saved in " +
                o.out + "; --resume continues from there)");
  }
  printer.finish();
  std::signal(SIGINT, SIG_DFL);
  std::fprintf(stderr, "time: %.1f s forward passes, %.1f s analysis, %.1f s accumulators, %.1f s reading the input\n",
               outcome.forward_seconds, outcome.analysis_seconds, outcome.accumulate_seconds, outcome.read_seconds);

  file.partial = !outcome.complete;
  file.windows = outcome.windows;
  file.documents = outcome.documents;
  save_corpus(o.out, file);
  const std::string csv = o.csv.empty() ? default_csv_folder(o.out).string() : o.csv;
  write_corpus_csv(csv, *file.accumulator);
  if (file.partial)
    std::printf(
        "stopped after %llu windows: the partial result is saved in %s (tables in %s/); add --resume to continue\n",
        static_cast<unsigned long long>(file.windows), o.out.c_str(), csv.c_str());
  else
    std::printf("%s from %s; result in %s, tables in %s/\n", count(file.windows, "window").c_str(),
                count(file.documents, "document").c_str(), o.out.c_str(), csv.c_str());
  return file.partial ? 130 : 0;
}

}  // namespace

Action add_corpus_command(CLI::App& app) {
  auto o = std::make_shared<CorpusCommandOptions>();
  auto* cmd = app.add_subcommand(
      "corpus",
      "Run the analysis over a corpus cut into windows of --max-len tokens and accumulate the paper's "
      "corpus figures (summed attention maps, summed high-similarity masks, statistic distributions, "
      "distance histograms). Ctrl-C stops after the current batch and saves a partial result");
  add_model_options(*cmd, o->model);
  add_analysis_options(*cmd, o->analysis);
  cmd->add_option("--input", o->input,
                  "A UTF-8 text file, a JSON Lines file (.jsonl, records with a \"text\") or a folder of them")
      ->required();
  cmd->add_option("--batch", o->batch, "Windows per forward pass")->capture_default_str()->check(CLI::Range(1, 4096));
  cmd->add_option("--max-windows", o->max_windows, "Stop after this many windows (default: the whole corpus)");
  cmd->add_option("--out", o->out, "Result file (JSON, written atomically)")->capture_default_str();
  cmd->add_option("--csv", o->csv, "Folder for the CSV tables (default: the result's name with -csv)");
  cmd->add_flag("--resume", o->resume, "Continue the partial run saved in --out");
  cmd->add_option(
      "--shard", o->shard,
      "Run only shard K of N (K/N, 0-based: the windows whose number leaves remainder K when divided by N), or "
      "auto: the task of a Slurm job array. `attnscope-cli merge` sums the shards into the whole run");
  return [o] { return run_corpus_command(*o); };
}

}  // namespace attnscope::cli
