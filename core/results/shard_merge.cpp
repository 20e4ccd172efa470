#include "results/shard_merge.h"

#include <algorithm>
#include <map>

#include "base/error.h"
#include "results/analysis_json.h"

namespace attnscope {
namespace {

std::string shard_name(const CorpusFile& f) {
  return "shard " + std::to_string(f.options.shard_index) + " of " + std::to_string(f.options.shard_count);
}

void require_fingerprints(const CorpusFile& f, const std::filesystem::path& file) {
  if (f.input_fingerprint.is_null() || f.model_fingerprint.is_null())
    throw Error(file.string() + " has no fingerprints (a result of attnscope before shards): it cannot be merged");
}

// Everything but the shard number and the progress must agree for two shards of one run.
void check_same_run(const CorpusFile& first, const std::filesystem::path& first_file, const CorpusFile& f,
                    const std::filesystem::path& file) {
  const auto differ = [&](const char* what) {
    return Error(file.string() + " is not a shard of the same run as " + first_file.string() + ": different " + what);
  };
  if (f.options.shard_count != first.options.shard_count) throw differ("shard count");
  if (f.input_fingerprint != first.input_fingerprint) throw differ("input (files, sizes or contents)");
  if (f.model_fingerprint != first.model_fingerprint || f.model_config != first.model_config) throw differ("model");
  if (f.options.window != first.options.window) throw differ("window");
  if (f.window_pieces != first.window_pieces) throw differ("word pieces a window holds");
  if (f.options.max_windows != first.options.max_windows) throw differ("window limit (--max-windows)");
  if (settings_to_json(f.options.settings) != settings_to_json(first.options.settings))
    throw differ("analysis settings");
}

std::string list(const std::vector<uint64_t>& numbers) {
  std::string out;
  for (size_t k = 0; k < numbers.size(); ++k) out += (k ? ", " : "") + std::to_string(numbers[k]);
  return out;
}

}  // namespace

std::vector<std::filesystem::path> shard_files(const std::vector<std::filesystem::path>& given) {
  if (given.size() != 1 || !std::filesystem::is_directory(given.front())) return given;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(given.front()))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error(given.front().string() + ": no shard results (*.json) in this folder");
  return files;
}

CorpusFile merge_shards(const std::vector<std::filesystem::path>& files) {
  if (files.empty()) throw Error("no shards to merge");
  CorpusFile merged;
  std::filesystem::path first_file;
  std::map<uint64_t, std::filesystem::path> seen;
  std::vector<uint64_t> partial;
  for (const auto& file : files) {
    CorpusFile shard = load_corpus(file);
    require_fingerprints(shard, file);
    const uint64_t index = shard.options.shard_index;
    if (merged.accumulator) check_same_run(merged, first_file, shard, file);
    if (const auto again = seen.find(index); again != seen.end())
      throw Error(shard_name(shard) + " is given twice: " + again->second.string() + " and " + file.string());
    seen[index] = file;
    if (shard.partial) partial.push_back(index);
    if (!merged.accumulator) {  // the first shard starts the sum
      merged = std::move(shard);
      first_file = file;
      continue;
    }
    auto into = merged.accumulator->tensors();
    const auto from = shard.accumulator->tensors();
    for (size_t k = 0; k < into.size(); ++k) into[k].second->add_(*from[k].second);
    merged.windows += shard.windows;
    merged.documents = std::max(merged.documents, shard.documents);  // every shard reads every document
  }
  const uint64_t count = merged.options.shard_count;
  std::vector<uint64_t> missing;
  for (uint64_t k = 0; k < count; ++k)
    if (!seen.count(k)) missing.push_back(k);
  if (!missing.empty())
    throw Error(std::string(missing.size() == 1 ? "shard " : "shards ") + list(missing) + " of " +
                std::to_string(count) + (missing.size() == 1 ? " is" : " are") + " missing: run " +
                (missing.size() == 1 ? "it" : "them") + " and merge again");
  if (!partial.empty()) {
    std::sort(partial.begin(), partial.end());
    throw Error(std::string(partial.size() == 1 ? "shard " : "shards ") + list(partial) + " of " +
                std::to_string(count) + (partial.size() == 1 ? " is" : " are") + " partial (" +
                seen[partial.front()].string() + (partial.size() == 1 ? "" : ", ...") +
                "): finish with corpus --resume, then merge again");
  }
  merged.accumulator->set_texts(static_cast<int64_t>(merged.windows));
  merged.options.shard_index = 0;
  merged.options.shard_count = 1;
  merged.partial = false;
  return merged;
}

}  // namespace attnscope
