#include "results/corpus_json.h"

#include <cmath>

#include "base/error.h"
#include "base/json_number.h"
#include "results/analysis_json.h"
#include "base/atomic_file.h"
#include "base/json_fields.h"
#include "results/json_stream.h"
#include "results/tensor_json.h"
#include "model/config.h"

namespace attnscope {
namespace {

constexpr const char* kFormat = "attnscope.corpus";

// Accumulators added after version 2 was first written: files without them still open, and the
// findings that need them say so.
bool is_kept_since_classes(const std::string& name) { return name == "separator_classes" || name == "token_classes"; }

// The document but its accumulators: save_corpus streams them into its member "accumulators".
nlohmann::json corpus_header(const CorpusFile& f) {
  return {{"format", kFormat},
          {"version", 2},
          {"model", {{"path", f.model_path}, {"config", f.model_config}}},
          {"device", f.device},
          {"input", f.options.input.string()},
          {"window", f.options.window},
          {"window_pieces", f.window_pieces},
          {"batch", f.options.batch},
          {"max_windows", f.options.max_windows},
          {"shard", {{"index", f.options.shard_index}, {"count", f.options.shard_count}}},
          {"input_fingerprint", f.input_fingerprint},
          {"model_fingerprint", f.model_fingerprint},
          {"settings", settings_to_json(f.options.settings)},
          {"partial", f.partial},
          {"windows", f.windows},
          {"documents", f.documents}};
}

NamedTensors corpus_accumulators(const CorpusFile& f) {
  NamedTensors tensors;
  for (const auto& [name, tensor] : f.accumulator->tensors()) tensors.emplace_back(name, *tensor);
  return tensors;
}

}  // namespace

nlohmann::json corpus_to_json(const CorpusFile& f) {
  nlohmann::json json = corpus_header(f);
  nlohmann::json& accumulators = json["accumulators"] = nlohmann::json::object();
  for (const auto& [name, tensor] : corpus_accumulators(f)) accumulators[name] = tensor_to_json(tensor);
  return json;
}

// A piece at a time (results/json_stream.h): a BERT-base-sized run at 512 tokens writes 1.6 GB of
// JSON, which as one document and its dump took 6.5 GB and most of a minute.
void save_corpus(const std::filesystem::path& path, const CorpusFile& f, const ProgressReport& progress) {
  write_file_atomically(path, [&](std::ostream& out) {
    write_json_with_tensors(out, corpus_header(f), corpus_accumulators(f), {},
                            {.member = "accumulators", .progress = progress});
    out << '\n';
  });
}

CorpusFile load_corpus(const std::filesystem::path& path) {
  const JsonWithBlobs json(path);
  return corpus_from_json(json.document(), path.string(), &json);
}

CorpusFile corpus_from_json(const nlohmann::json& j, const std::string& where, const JsonWithBlobs* blobs) {
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat || !j.contains("version") ||
      (j["version"] != 1 && j["version"] != 2))
    throw Error(where + ": not an attnscope corpus result (format \"" + std::string(kFormat) + "\", version 1 or 2)");
  CorpusFile f;
  try {
    f.model_path = j.at("model").at("path").get<std::string>();
    f.model_config = j.at("model").at("config");
    f.device = j.at("device").get<std::string>();
    f.options.input = j.at("input").get<std::string>();
    f.options.window = json_integer<size_t>(j.at("window"), where + ": \"window\"");
    f.window_pieces = j.contains("window_pieces")
                          ? json_integer<uint64_t>(j["window_pieces"], where + ": \"window_pieces\"")
                          : f.options.window - std::min<size_t>(f.options.window, 2);
    f.options.batch = json_integer<size_t>(j.at("batch"), where + ": \"batch\"");
    f.options.max_windows = json_integer<uint64_t>(j.at("max_windows"), where + ": \"max_windows\"");
    f.partial = j.at("partial").get<bool>();
    f.windows = json_integer<uint64_t>(j.at("windows"), where + ": \"windows\"");
    f.documents = json_integer<uint64_t>(j.at("documents"), where + ": \"documents\"");
    if (j["version"] == 2) {
      f.options.shard_index = json_integer<uint64_t>(j.at("shard").at("index"), where + ": \"shard.index\"");
      f.options.shard_count = json_integer<uint64_t>(j.at("shard").at("count"), where + ": \"shard.count\"");
      f.input_fingerprint = j.at("input_fingerprint");
      f.model_fingerprint = j.at("model_fingerprint");
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": a field is missing or has the wrong type (" + e.what() + ")");
  }
  if (f.options.shard_count == 0 || f.options.shard_index >= f.options.shard_count)
    throw Error(where + ": shard " + std::to_string(f.options.shard_index) + " of " +
                std::to_string(f.options.shard_count) + " does not exist");
  f.options.settings = settings_from_json(j.value("settings", nlohmann::json::object()), where);
  const ModelConfig config = ModelConfig::from_json(f.model_config, where + ": model.config");
  if (f.options.window < 3 || f.options.window > static_cast<size_t>(config.max_tokens()))
    throw Error(where + ": window " + std::to_string(f.options.window) + " does not fit the model");
  // The accumulators' size follows from the file's numbers: the file must hold their data before
  // they are allocated, so a small damaged file cannot ask for gigabytes.
  const nlohmann::json& saved = json_member(j, "accumulators");  // no copy of the data
  const double cells = static_cast<double>(config.num_layers) * static_cast<double>(config.num_heads) *
                       static_cast<double>(f.options.window) * static_cast<double>(f.options.window);
  const double base64_length = std::ceil(cells * 8 / 3) * 4;  // float64 cells in base64
  const bool holds = saved.is_object() && saved.contains("attention_sum") && saved["attention_sum"].is_object() &&
                     saved["attention_sum"].contains("data") && saved["attention_sum"]["data"].is_string() &&
                     static_cast<double>(string_text(saved["attention_sum"]["data"], blobs).size()) == base64_length;
  if (!holds)
    throw Error(where + ": accumulator \"attention_sum\" is missing or does not hold " +
                std::to_string(config.num_layers) + " x " + std::to_string(config.num_heads) + " x " +
                std::to_string(f.options.window) + " x " + std::to_string(f.options.window) + " values");
  f.accumulator =
      std::make_shared<CorpusAccumulator>(config.num_layers, config.num_heads, static_cast<int64_t>(f.options.window));
  for (const auto& [name, tensor] : f.accumulator->tensors()) {
    if (!saved.contains(name) && is_kept_since_classes(name)) continue;  // an older file: left at zero
    if (!saved.contains(name)) throw Error(where + ": accumulator \"" + name + "\" is missing");
    read_tensor_json_into(saved[name], *tensor, where + ": accumulators." + name, blobs);  // made on the host above
  }
  f.accumulator->set_texts(static_cast<int64_t>(f.windows));
  return f;
}

}  // namespace attnscope
