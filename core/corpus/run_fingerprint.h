#pragma once
// What a corpus run was made from, so that shards are merged only with shards of the same run:
// the input's files (in reading order, each with its size and SHA-256) and the model's files
// (config, tokenizer and weights, each with its size and SHA-256). Paths are left out: the same
// corpus and model copied to another machine or folder give the same fingerprints.
#include <filesystem>

#include <nlohmann/json.hpp>

namespace attnscope {

nlohmann::json input_fingerprint(const std::filesystem::path& input);
nlohmann::json model_fingerprint(const std::filesystem::path& checkpoint_dir);

}  // namespace attnscope
