#include "model/tensor_source.h"

#include <ATen/ATen.h>

#include <cstring>

#include "base/error.h"

namespace attnscope {

std::optional<std::vector<int64_t>> SafetensorsSource::shape(const std::string& name) const {
  if (const TensorInfo* info = file_.find(name)) return info->shape;
  return std::nullopt;
}

at::Tensor SafetensorsSource::read(const std::string& name) const {
  const TensorInfo* info = file_.find(name);
  if (!info) throw Error(file_.source() + ": tensor " + name + " is missing");
  at::ScalarType stored;
  switch (info->dtype) {
    case DType::F32: stored = at::kFloat; break;
    case DType::F16: stored = at::kHalf; break;
    case DType::BF16: stored = at::kBFloat16; break;
    default:
      throw Error(file_.source() + ": tensor " + info->name + " has dtype " + std::string(dtype_name(info->dtype)) +
                  ", expected F32, F16 or BF16");
  }
  // Copied out of the map: the data need not be aligned for its type inside the file.
  at::Tensor host = at::empty(info->shape, at::TensorOptions().dtype(stored));
  const auto bytes = file_.data(*info);
  if (!bytes.empty()) std::memcpy(host.data_ptr(), bytes.data(), bytes.size());
  return host;
}

}  // namespace attnscope
