#pragma once
// The result file of a corpus run (`attnscope-cli corpus`): what was run, how far it got, and
// every accumulator; written atomically, read back to resume a run or to show its figures.
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "corpus/corpus_run.h"

namespace attnscope {

struct CorpusFile {
  std::string model_path;
  nlohmann::json model_config;
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
