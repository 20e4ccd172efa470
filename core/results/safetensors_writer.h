#pragma once
// Writes tensors in the safetensors layout (an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets}, "__metadata__": {string: string}}, then the raw bytes), so
// that what attnscope writes opens in Python with `safetensors.safe_open` and numpy. The bytes
// are copied from the tensors' memory as they are: writing runs at the speed of the disk.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/progress.h"

namespace attnscope {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

// A tensor whose bytes are made while the file is written, a piece at a time, never whole in
// memory (a long text's pair masks: 1.1 GB at 8,192 tokens, made from each head's chunked mask).
// `write` puts exactly numel * element size bytes on the stream.
struct StreamedTensor {
  std::string name;
  at::ScalarType dtype = at::kByte;
  std::vector<int64_t> shape;
  std::function<void(std::ostream&)> write;

  uint64_t bytes() const;
  at::Tensor made() const;  // the whole tensor, where one is needed (a JSON result)
};

constexpr uint64_t kWrittenPiece = uint64_t{16} << 20;

// Tensors of float32, float64, int32, int64, uint8 or bool, on any device (copied to the host),
// then the streamed ones. Written atomically (see atomic_file.h). Throws attnscope::Error.
// `progress` (may be empty) gets ("writing", bytes written / bytes) every kWrittenPiece bytes
// and after each streamed tensor: a run's maps of 2,048 tokens make a file of a gigabyte.
void write_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                       const std::map<std::string, std::string>& metadata,
                       const std::vector<StreamedTensor>& streamed = {}, const ProgressReport& progress = {});

}  // namespace attnscope
