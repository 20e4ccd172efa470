#pragma once
// The result file of a corpus run (`attnscope-cli corpus`): what was run (version 2: with the
// shard and the fingerprints of input and model), how far it got, and every accumulator; written
// atomically, read back to resume a run, to merge shards or to show its figures. Version 1 files
// (one whole run, no fingerprints) are still read.
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "base/json_with_blobs.h"
#include "base/progress.h"
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
  // Word pieces in a full window (pieces_per_window): N - 2 for BERT's [CLS] ... [SEP], N - 1 or N
  // for a decoder; read as N - 2 from files written before it was kept, when every run cut so.
  uint64_t window_pieces = 0;
  std::shared_ptr<CorpusAccumulator> accumulator;
};

// Written a piece at a time: the bytes of corpus_to_json(file).dump() and a newline; `progress`:
// ("writing", share of the accumulators' bytes written).
void save_corpus(const std::filesystem::path& path, const CorpusFile& file, const ProgressReport& progress = {});
nlohmann::json corpus_to_json(const CorpusFile& file);
CorpusFile load_corpus(const std::filesystem::path& path);
// The same from parsed JSON; `where` names it in error messages. Throws attnscope::Error. With
// `blobs` (the document's source), the accumulators' data is read where it lies in the file.
CorpusFile corpus_from_json(const nlohmann::json& json, const std::string& where, const JsonWithBlobs* blobs = nullptr);

}  // namespace attnscope
