#include "results/tensor_json.h"

#include <ATen/ATen.h>

#include "base/error.h"
#include "base/base64.h"
#include "base/json_number.h"

namespace attnscope {
namespace {

const char* dtype_name(at::ScalarType type) {
  switch (type) {
    case at::kDouble: return "float64";
    case at::kLong: return "int64";
    case at::kFloat: return "float32";
    case at::kByte: return "uint8";
    default: throw Error(std::string("a tensor of ") + c10::toString(type) + " is not saved as JSON");
  }
}

bool is_float(at::ScalarType type) { return type == at::kFloat || type == at::kDouble; }

}  // namespace

nlohmann::json tensor_json_fields(const at::Tensor& tensor, bool decimal) {
  return {{"shape", tensor.sizes().vec()},
          {"dtype", dtype_name(tensor.scalar_type())},
          {"encoding", decimal && is_float(tensor.scalar_type()) ? "decimal" : "base64-le"}};
}

nlohmann::json tensor_to_json(const at::Tensor& tensor, bool decimal) {
  const at::Tensor t = tensor.cpu().contiguous();
  nlohmann::json out = tensor_json_fields(t, decimal);
  if (out["encoding"] == "decimal") {
    if (t.scalar_type() == at::kFloat)
      out["data"] = std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
    else
      out["data"] = std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
    return out;
  }
  out["data"] = base64_encode({static_cast<const std::byte*>(t.data_ptr()), static_cast<size_t>(t.nbytes())});
  return out;
}

void read_tensor_json_into(const nlohmann::json& json, at::Tensor& out, const std::string& where,
                           const JsonWithBlobs* blobs) {
  const char* dtype = dtype_name(out.scalar_type());
  const bool decimal_allowed = is_float(out.scalar_type());
  // Compared as JSON values: value() would throw nlohmann's own error for a field of another type.
  const bool base64 = json.is_object() && json.contains("encoding") && json["encoding"] == "base64-le";
  const bool decimal =
      decimal_allowed && json.is_object() && json.contains("encoding") && json["encoding"] == "decimal";
  if (!json.is_object() || !json.contains("dtype") || json["dtype"] != dtype || !(base64 || decimal) ||
      !json.contains("shape") || !json.contains("data") || (base64 && !json["data"].is_string()) ||
      (decimal && !json["data"].is_array()))
    throw Error(where + ": expected a " + std::string(dtype) + " tensor in base64-le" +
                (decimal_allowed ? " or decimal" : ""));
  if (!json["shape"].is_array()) throw Error(where + ": \"shape\" must be a list of sizes");
  std::vector<int64_t> shape;
  for (const auto& size : json["shape"]) shape.push_back(json_integer<int64_t>(size, where + ": a size in \"shape\""));
  if (shape != out.sizes().vec())
    throw Error(where + ": shape " + json["shape"].dump() + " does not match " + c10::str(out.sizes()) +
                " (this model and text)");
  if (!out.device().is_cpu() || !out.is_contiguous())
    throw Error(where + ": read into a tensor that is not the host's");
  const auto& data = json["data"];
  if (decimal) {
    if (static_cast<int64_t>(data.size()) != out.numel())
      throw Error(where + ": holds " + std::to_string(data.size()) + " numbers, expected " +
                  std::to_string(out.numel()));
    for (size_t k = 0; k < data.size(); ++k) {
      if (out.scalar_type() == at::kFloat)
        out.data_ptr<float>()[k] = json_float(data[k], where + ": an entry");
      else if (data[k].is_number())
        out.data_ptr<double>()[k] = data[k].get<double>();
      else
        throw Error(where + ": an entry must be a number");
    }
    return;
  }
  const std::string_view text = string_text(data, blobs);
  try {
    const size_t bytes = base64_decoded_size(text);
    if (bytes != out.nbytes())
      throw Error("holds " + std::to_string(bytes) + " bytes, expected " + std::to_string(out.nbytes()));
    base64_decode_into(text, {static_cast<std::byte*>(out.data_ptr()), bytes});
    if (blobs) blobs->release(text);  // decoded: the file's pages are not kept beside the tensor
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
}

at::Tensor tensor_from_json(const nlohmann::json& json, const at::Tensor& like, const std::string& where,
                            const JsonWithBlobs* blobs) {
  at::Tensor out = at::empty(like.sizes(), like.options().device(at::kCPU));
  read_tensor_json_into(json, out, where, blobs);
  return out.to(like.device());
}

}  // namespace attnscope
