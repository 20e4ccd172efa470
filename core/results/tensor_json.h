#pragma once
// A tensor as JSON: {"shape": [...], "dtype": "float64"|"int64"|"float32"|"uint8",
// "encoding": "base64-le"|"decimal", "data": ...}. base64-le: the little-endian values, row-major,
// in base64 (exact); decimal (float tensors only): a flat list of numbers, each the shortest
// decimal that reads back as the same value, for tools like jq.
#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <string>

#include "base/json_with_blobs.h"

namespace attnscope {

nlohmann::json tensor_to_json(const at::Tensor& tensor, bool decimal = false);
// Its fields but "data" (written apart a piece at a time: json_stream.h); "encoding" says how.
nlohmann::json tensor_json_fields(const at::Tensor& tensor, bool decimal = false);
// Checks the shape and dtype against `like` (whose values are ignored); `where` names it in errors.
// With `blobs`, base64 data is read where it lies in the file (json_with_blobs.h).
at::Tensor tensor_from_json(const nlohmann::json& json, const at::Tensor& like, const std::string& where,
                            const JsonWithBlobs* blobs = nullptr);
// The same read into `out` (contiguous, on the host), its shape and dtype checked: a corpus
// result's accumulators of a gigabyte are filled where they are, not made a second time. With
// `blobs`, the document's base64 data is read where it lies in the file (json_with_blobs.h).
void read_tensor_json_into(const nlohmann::json& json, at::Tensor& out, const std::string& where,
                           const JsonWithBlobs* blobs = nullptr);

}  // namespace attnscope
