#pragma once
// Downloads a transformers checkpoint (config.json, its tokenizer, model.safetensors), or one file
// of a GGUF repository (hub/gguf_choice.h), by model id from the Hugging Face Hub (or any server
// speaking its URL scheme, $HF_ENDPOINT) into the Hub's own cache layout, so Python tools and
// attnscope share it: blobs/<etag>, snapshots/<commit>/<file> (relative symlinks),
// refs/<revision>. Transfers resume from blobs/<etag>.incomplete after an interruption, and every
// file is checked against the hash the Hub reports before it enters the cache.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace attnscope {

struct HubOptions {
  std::string endpoint = "https://huggingface.co";  // $HF_ENDPOINT
  std::string token;                                // $HF_TOKEN (sent as a bearer token)
  std::filesystem::path cache;                      // hub_cache_dir()
  bool offline = false;                             // $HF_HUB_OFFLINE
  std::string revision = "main";
  long stall_seconds = 30;  // a transfer that moves no byte for this long has failed
  int retries = 3;          // resumed attempts after an interrupted transfer, before giving up
};

// The options the environment asks for ($HF_ENDPOINT, $HF_TOKEN, $HF_HUB_OFFLINE, the cache).
HubOptions hub_options_from_environment();

struct DownloadProgress {
  std::string file;
  int file_index = 0, files = 0;
  uint64_t done = 0, total = 0;  // bytes of this file, counting what an earlier attempt left
  double seconds = 0;            // since this file started
};
// Return false to cancel (the partial file is kept for a later resume).
using DownloadCallback = std::function<bool(const DownloadProgress&)>;

// The files of a checkpoint that attnscope reads, chosen from the repository's file list; throws
// attnscope::Error when a required one is missing (e.g. only pytorch_model.bin).
std::vector<std::string> checkpoint_files(const std::string& model_id,
                                          const std::vector<std::string>& repository_files);

// Downloads what is missing and returns what to open: the snapshot folder, or a GGUF repository's
// file in it. `model_id` is "name" or "org/name", and for a GGUF repository may end in ":TAG",
// the file to fetch (org/name:Q8_0). Throws attnscope::Error with what went wrong and what to do
// (no such model, a token is needed, offline, hash mismatch, no clear GGUF file, ...).
std::filesystem::path download_model(const std::string& model_id, const HubOptions& options,
                                     const DownloadCallback& progress = {});

}  // namespace attnscope
