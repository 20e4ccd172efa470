#pragma once
// Where a model named on the command line (or in the GUI) lives: a checkpoint folder as given, or a
// Hugging Face model id ("bert-base-uncased", "google-bert/bert-base-uncased", "org/name") found in
// the Hugging Face cache that Python users already have, so nothing is downloaded twice.
#include <filesystem>
#include <string>
#include <vector>

namespace attnscope {

// The hub cache folder: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub
// ($XDG_CACHE_HOME replacing ~/.cache when set), as the huggingface_hub library does.
std::filesystem::path hub_cache_dir();

// The cache folder names an id may have been downloaded under: the id itself and, for the classic
// BERT ids that the Hub moved under google-bert/ (and distilbert/), the new name.
std::vector<std::string> cached_repo_names(const std::string& model_id);

// A GGUF file (named *.gguf) is returned as it is, and so is a folder, unless it holds no
// config.json and one GGUF file: then that file. An id is looked up in the hub cache
// (models--ORG--NAME/snapshots/REVISION, the revision from refs/main, or the only snapshot), its
// snapshot then read as such a folder (a GGUF repository's download holds one file).
// Throws attnscope::Error saying where it looked and what to do.
std::filesystem::path locate_model(const std::string& model);
bool is_gguf_file(const std::filesystem::path& path);

// A model in the hub cache that attnscope can open: a snapshot whose config.json names an
// architecture it reads, or a GGUF file of one in a snapshot without config.json.
struct CachedModel {
  std::string id;                  // "org/name" as the cache folder spells it; a GGUF file's: "org/name/file.gguf"
  std::filesystem::path snapshot;  // the folder locate_model gives for it, or the GGUF file
  std::string model_type;          // config.json's model_type, or the one the GGUF file's architecture reads as
};
// Every cached model attnscope can open, sorted by id; unreadable entries are skipped (the cache
// may hold anything).
std::vector<CachedModel> list_cached_models(const std::filesystem::path& cache);

}  // namespace attnscope
