#include "io/tensor_json.h"

#include <ATen/ATen.h>

#include <cstring>

#include "error.h"
#include "io/json_number.h"
#include "io/base64.h"

namespace attnscope {

nlohmann::json tensor_to_json(const at::Tensor& tensor) {
  const at::Tensor t = tensor.cpu().contiguous();
  if (t.scalar_type() != at::kDouble && t.scalar_type() != at::kLong) throw Error("only float64 and int64 tensors are saved as JSON");
  return {{"shape", t.sizes().vec()},
          {"dtype", t.scalar_type() == at::kDouble ? "float64" : "int64"},
          {"encoding", "base64-le"},
          {"data", base64_encode({static_cast<const std::byte*>(t.data_ptr()), static_cast<size_t>(t.nbytes())})}};
}

at::Tensor tensor_from_json(const nlohmann::json& json, const at::Tensor& like, const std::string& where) {
  const char* dtype = like.scalar_type() == at::kDouble ? "float64" : "int64";
  // Compared as JSON values: value() would throw nlohmann's own error for a field of another type.
  if (!json.is_object() || !json.contains("dtype") || json["dtype"] != dtype || !json.contains("encoding") || json["encoding"] != "base64-le" ||
      !json.contains("shape") ||
      !json.contains("data") || !json["data"].is_string())
    throw Error(where + ": expected a " + std::string(dtype) + " tensor in base64-le");
  if (!json["shape"].is_array()) throw Error(where + ": \"shape\" must be a list of sizes");
  std::vector<int64_t> shape;
  for (const auto& size : json["shape"]) shape.push_back(json_integer<int64_t>(size, where + ": a size in \"shape\""));
  if (shape != like.sizes().vec()) throw Error(where + ": shape " + json["shape"].dump() + " does not match this model and window");
  std::vector<std::byte> bytes;
  try {
    bytes = base64_decode(json["data"].get_ref<const std::string&>());
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  if (bytes.size() != static_cast<size_t>(like.nbytes()))
    throw Error(where + ": holds " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(like.nbytes()));
  at::Tensor out = at::empty(like.sizes(), like.options().device(at::kCPU));
  if (!bytes.empty()) std::memcpy(out.data_ptr(), bytes.data(), bytes.size());
  return out.to(like.device());
}

}  // namespace attnscope
