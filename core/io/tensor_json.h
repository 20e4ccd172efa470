#pragma once
// Any float64 or int64 tensor as JSON: {"shape": [...], "dtype": "float64"|"int64",
// "encoding": "base64-le", "data": "..."} (little-endian values, row-major). Exact.
#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <string>

namespace attnscope {

nlohmann::json tensor_to_json(const at::Tensor& tensor);
// Checks the shape and dtype against `like` (whose values are ignored); `where` names it in errors.
at::Tensor tensor_from_json(const nlohmann::json& json, const at::Tensor& like, const std::string& where);

}  // namespace attnscope
