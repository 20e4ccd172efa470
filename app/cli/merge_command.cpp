#include <cstdio>

#include "commands.h"
#include "corpus_runner.h"
#include "progress_line.h"
#include "results/shard_merge.h"
#include "base/error.h"
#include "results/corpus_csv.h"
#include "results/corpus_json.h"

namespace attnscope::cli {
namespace {

struct MergeOptions {
  std::string out;
  std::vector<std::string> shards;
  std::string csv;
};

int run_merge_command(const MergeOptions& o) {
  std::vector<std::filesystem::path> given(o.shards.begin(), o.shards.end());
  const std::vector<std::filesystem::path> files = shard_files(given);
  for (const auto& f : files)
    if (std::filesystem::exists(o.out) && std::filesystem::equivalent(f, o.out))
      throw Error(o.out + " is one of the shards: write the merged result elsewhere");
  const CorpusFile merged = [&] {
    StageProgress progress;
    progress.begin("reading " + count(files.size(), "shard"));
    return merge_shards(files);
  }();
  save_corpus_shown(o.out, merged);
  const std::string csv = o.csv.empty() ? default_csv_folder(o.out).string() : o.csv;
  write_corpus_csv_shown(csv, *merged.accumulator);
  std::printf("%zu shards, %llu windows from %llu documents; result in %s, tables in %s/\n", files.size(),
              static_cast<unsigned long long>(merged.windows), static_cast<unsigned long long>(merged.documents),
              o.out.c_str(), csv.c_str());
  return 0;
}

}  // namespace

Action add_merge_command(CLI::App& app) {
  auto o = std::make_shared<MergeOptions>();
  auto* cmd = app.add_subcommand(
      "merge",
      "Sum the shards of a corpus run (corpus --shard K/N) into the whole run's result and CSV tables, after "
      "checking that they are all the shards of one run (same input, model, settings and N; each once; none "
      "partial)");
  cmd->add_option("out", o->out, "The merged result file (JSON)")->required();
  cmd->add_option("shards", o->shards, "The shards' result files, or one folder holding them (*.json)")->required();
  cmd->add_option("--csv", o->csv, "Folder for the CSV tables (default: the result's name with -csv)");
  return [o] { return run_merge_command(*o); };
}

}  // namespace attnscope::cli
