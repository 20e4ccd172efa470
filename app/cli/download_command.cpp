#include <cstdio>

#include "commands.h"
#include "hub/hub_download.h"
#include "base/byte_size.h"
#include "progress_line.h"

namespace attnscope::cli {
namespace {

struct DownloadOptions {
  std::string id, revision = "main", cache, endpoint;
  long stall_seconds = 30;
};

int run_download(const DownloadOptions& o) {
  HubOptions hub = hub_options_from_environment();
  hub.revision = o.revision;
  hub.stall_seconds = o.stall_seconds;
  if (!o.cache.empty()) hub.cache = o.cache;
  if (!o.endpoint.empty()) hub.endpoint = o.endpoint;
  ProgressLine line("download");
  std::string current;
  const auto snapshot = download_model(o.id, hub, [&](const DownloadProgress& p) {
    if (p.file != current) {
      if (!current.empty()) line.finish();
      current = p.file;
      line = ProgressLine("download " + p.file);
    }
    const double f = p.total ? static_cast<double>(p.done) / static_cast<double>(p.total) : 0;
    const double rate = p.seconds > 0 ? static_cast<double>(p.done) / p.seconds : 0;
    char text[200];
    std::snprintf(text, sizeof text, "%s (%d/%d)  %s of %s  %s/s  %s left", p.file.c_str(), p.file_index + 1, p.files,
                  byte_size(static_cast<double>(p.done)).c_str(), byte_size(static_cast<double>(p.total)).c_str(),
                  byte_size(rate).c_str(),
                  rate > 0 && p.total >= p.done ? duration(static_cast<double>(p.total - p.done) / rate).c_str() : "?");
    line.update(f, p.seconds, text);
    return true;
  });
  if (!current.empty()) line.finish();
  std::printf("%s\n", snapshot.c_str());
  // A GGUF repository's file is opened by its path: the cache may hold several of its files.
  const bool file = snapshot.extension() == ".gguf";
  std::fprintf(stderr, "%s is in the cache; use it with --model %s\n", o.id.c_str(),
               file ? snapshot.c_str() : o.id.c_str());
  return 0;
}

}  // namespace

Action add_download_command(CLI::App& app) {
  auto o = std::make_shared<DownloadOptions>();
  auto* cmd = app.add_subcommand("download",
                                 "Download a checkpoint (any architecture attnscope reads) by model id into the "
                                 "Hugging Face cache (resumable, hash-checked), "
                                 "honouring HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE, HF_HUB_CACHE and HF_HOME");
  cmd->add_option("id", o->id,
                  "Model id: bert-base-uncased, google-bert/bert-base-uncased, org/name; for a GGUF repository "
                  "org/name:TAG fetches the file named for TAG (org/name:Q8_0; default: its only file, else its "
                  "Q4_K_M)")
      ->required();
  cmd->add_option("--revision", o->revision, "Branch, tag or commit")->capture_default_str();
  cmd->add_option("--cache", o->cache,
                  "Hub cache folder (default: $HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub)");
  cmd->add_option("--endpoint", o->endpoint, "Hub address (default: $HF_ENDPOINT or https://huggingface.co)");
  cmd->add_option("--stall-timeout", o->stall_seconds, "Seconds without a byte before a transfer counts as failed")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  return [o] { return run_download(*o); };
}

}  // namespace attnscope::cli
