#pragma once
// The JSON file of one analysed text (`attnscope-cli analyze --out`): model, tokens with their
// byte ranges, and per layer and head the attention map and head outputs as float32 matrices.
// The format is documented in docs/result-format.md.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "model/checkpoint.h"

namespace attnscope {

enum class MatrixEncoding { Base64, Decimal };

struct TextRunFile {
  std::string model_path;
  nlohmann::json model_config;  // as BertConfig::to_json
  std::string device;           // e.g. "cpu float32"
  std::string text;
  size_t max_length = 0;
  TextRun run;                  // captures as CPU float32; hidden states are not stored
};

nlohmann::json matrix_to_json(const at::Tensor& matrix, MatrixEncoding encoding);
// Reads a matrix back, checking it is rows x cols; `where` names it in error messages.
at::Tensor matrix_from_json(const nlohmann::json& json, int64_t rows, int64_t cols, const std::string& where);

nlohmann::json text_run_to_json(const TextRunFile& file, MatrixEncoding encoding);
TextRunFile text_run_from_json(const nlohmann::json& json, const std::string& source);

void save_text_run(const std::filesystem::path& path, const TextRunFile& file, MatrixEncoding encoding);
TextRunFile load_text_run(const std::filesystem::path& path);

}  // namespace attnscope
