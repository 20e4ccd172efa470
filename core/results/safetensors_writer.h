#pragma once
// Writes tensors in the safetensors layout (an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets}, "__metadata__": {string: string}}, then the raw bytes), so
// that what attnscope writes opens in Python with `safetensors.safe_open` and numpy. The bytes
// are copied from the tensors' memory as they are: writing runs at the speed of the disk.
#include <ATen/core/Tensor.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace attnscope {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

// Tensors of float32, float64, int32, int64, uint8 or bool, on any device (copied to the host).
// Written atomically (see atomic_file.h). Throws attnscope::Error.
void write_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                       const std::map<std::string, std::string>& metadata);

}  // namespace attnscope
