#include "results/safetensors_writer.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/atomic_file.h"

namespace attnscope {
namespace {

const char* dtype_tag(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return "F32";
    case at::kDouble: return "F64";
    case at::kInt: return "I32";
    case at::kLong: return "I64";
    case at::kByte: return "U8";
    case at::kBool: return "BOOL";
    default: throw Error(std::string("a tensor of ") + c10::toString(type) + " cannot be written to a result file");
  }
}

}  // namespace

void write_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<at::Tensor> host;
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name == "__metadata__") throw Error("a tensor cannot be named __metadata__");
    host.push_back(tensor.cpu().contiguous());
    const uint64_t bytes = static_cast<uint64_t>(host.back().nbytes());
    header[name] = {{"dtype", dtype_tag(tensor.scalar_type())},
                    {"shape", tensor.sizes().vec()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the format's own writer does
  write_file_atomically(path, [&](std::ostream& out) {
    const uint64_t size = text.size();
    char length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<char>(size >> (8 * i) & 0xff);
    out.write(length, 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const at::Tensor& t : host)
      out.write(static_cast<const char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
  });
}

}  // namespace attnscope
