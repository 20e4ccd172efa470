#pragma once
// The result file of a corpus run (`attnscope-cli corpus`): what was run (version 2: with the
// shard and the fingerprints of input and model), how far it got, and every accumulator; written
// atomically, read back to resume a run, to merge shards or to show its figures. Version 1 files
// (one whole run, no fingerprints) are still read.
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "corpus/corpus_run.h"

namespace attnscope {

struct CorpusFile {
  std::string model_path;
  nlohmann::json model_config;
  // What the run was made from (run_fingerprint.h); null in files of version 1.
  nlohmann::json input_fingerprint, model_fingerprint;
  std::string device;
  CorpusOptions options;
  bool partial = false;
  uint64_t windows = 0, documents = 0;
  std::shared_ptr<CorpusAccumulator> accumulator;
};

void save_corpus(const std::filesystem::path& path, const CorpusFile& file);
CorpusFile load_corpus(const std::filesystem::path& path);
// The same from parsed JSON; `where` names it in error messages. Throws attnscope::Error.
CorpusFile corpus_from_json(const nlohmann::json& json, const std::string& where);

}  // namespace attnscope
