#pragma once
// Reading version 1 result files of `attnscope-cli analyze` (JSON, one matrix per head; written
// before version 2, see text_run_file.h), and the pieces of JSON both versions share.
#include <string>

#include <nlohmann/json.hpp>

#include "results/text_run_file.h"

namespace attnscope {

// The "format" of a text's result file, in both versions.
inline constexpr const char* kTextRunFormat = "attnscope.text-run";

// Reads a matrix ({rows, cols, encoding: base64-f32le | decimal, data}), checking it is rows x
// cols; `where` names it in error messages.
at::Tensor matrix_from_json(const nlohmann::json& json, int64_t rows, int64_t cols, const std::string& where);

Token token_from_json(const nlohmann::json& json, const std::string& where);

// What both versions hold alike: model, device, text, length and tokens (the model's config is
// checked). `json` is a version 1 file or a version 2 document.
TextRunFile text_run_header(const nlohmann::json& json, const std::string& source);

// A version 1 file; throws attnscope::Error naming what is wrong.
TextRunFile text_run_from_v1_json(const nlohmann::json& json, const std::string& source);

}  // namespace attnscope
