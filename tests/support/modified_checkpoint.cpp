#include "support/modified_checkpoint.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>

#include "results/safetensors_writer.h"
#include "model/safetensors.h"

namespace attnscope::test {
namespace fs = std::filesystem;

void write_modified_checkpoint(const fs::path& from, const fs::path& to, const TensorEdit& edit) {
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from))
    if (entry.is_regular_file() && entry.path().filename() != "model.safetensors")
      fs::copy_file(entry.path(), to / entry.path().filename());
  const SafetensorsFile file(from / "model.safetensors");
  NamedTensors tensors;
  for (const TensorInfo& info : file.tensors()) {
    if (info.dtype != DType::F32 && info.dtype != DType::I64)
      throw std::runtime_error("only float32 and int64 tensors are edited: " + info.name);
    const auto type = info.dtype == DType::F32 ? at::kFloat : at::kLong;
    const at::Tensor value = at::from_blob(const_cast<std::byte*>(file.data(info).data()), info.shape, type).clone();
    tensors.emplace_back(info.name, edit(info.name, value).contiguous());
  }
  write_safetensors(to / "model.safetensors", tensors, file.metadata());
}

TensorEdit permute_heads(std::vector<std::vector<int>> permutation, int64_t heads) {
  return [permutation = std::move(permutation), heads](const std::string& name, const at::Tensor& value) {
    static const std::regex projection(
        R"(layer\.(\d+)\.attention\.(self\.(query|key|value)\.(weight|bias)|output\.dense\.weight)$)");
    std::smatch m;
    if (!std::regex_search(name, m, projection)) return value;
    const std::vector<int>& order = permutation.at(std::stoul(m[1]));
    const bool columns = m[2] == "output.dense.weight";
    const int64_t dim = columns ? 1 : 0, d = value.size(dim) / heads;
    std::vector<at::Tensor> blocks;
    for (const int h : order) blocks.push_back(value.narrow(dim, h * d, d));
    return at::cat(blocks, dim);
  };
}

void write_longer_checkpoint(const std::filesystem::path& from, const std::filesystem::path& to, int64_t positions) {
  write_modified_checkpoint(from, to, [](const std::string&, const at::Tensor& value) { return value; });
  nlohmann::json config = nlohmann::json::parse(std::ifstream(to / "config.json"));
  config["max_position_embeddings"] = positions;
  std::ofstream(to / "config.json") << config.dump();
}

// FNV-1a: a seed per tensor that is the same on every platform (std::hash is not).
uint64_t name_seed(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

TensorEdit add_noise(double relative, uint64_t seed) {
  return [relative, seed](const std::string& name, const at::Tensor& value) {
    if (value.dim() != 2 || name.find("encoder.layer.") == std::string::npos) return value;
    at::Generator generator = at::detail::createCPUGenerator(seed ^ name_seed(name));
    return value + at::normal(0.0, 1.0, value.sizes(), generator) * (relative * value.std().item<double>());
  };
}

}  // namespace attnscope::test
