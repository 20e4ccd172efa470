#include <cstdio>

#include "base/error.h"
#include "commands.h"
#include "corpus/allocator_tuning.h"
#include "corpus_runner.h"
#include "results/corpus_csv.h"

namespace attnscope::cli {
namespace {

// --resume: the saved partial run's sums and windows taken over; false when it is already complete.
// Throws when it was made with another model, input, window, shard or settings.
bool resume_from(const std::string& out, CorpusFile& file) {
  CorpusFile saved = load_corpus_shown(out);
  if (!same_corpus_run(saved, file))
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
  CorpusFile file = new_corpus_file(o, *checkpoint, device);
  if (o.resume && !resume_from(o.out, file)) return 0;
  run_and_save_corpus(o, *checkpoint, file);
  const std::string csv = o.csv.empty() ? default_csv_folder(o.out).string() : o.csv;
  write_corpus_csv_shown(csv, *file.accumulator);
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
