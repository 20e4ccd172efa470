#pragma once
// Our own reader of the safetensors format over a memory map: an 8-byte little-endian header
// length, a JSON header {name: {dtype, shape, data_offsets}}, then the raw data. Every offset,
// size, shape and dtype is checked against the file before anything is read.
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/mapped_file.h"

namespace attnscope {

enum class DType { BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64, F8_E4M3, F8_E5M2 };

size_t dtype_size(DType dtype);
std::string_view dtype_name(DType dtype);

struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  size_t offset = 0;  // from the start of the file
  size_t size = 0;    // bytes

  int64_t numel() const;
};

using SafetensorsMetadata = std::map<std::string, std::string>;

// Parses and validates the header of a safetensors file held in `file`; `source` names it in
// error messages. The optional "__metadata__" (string to string) goes to `metadata` when given.
// Throws attnscope::Error.
std::vector<TensorInfo> parse_safetensors(std::span<const std::byte> file, const std::string& source,
                                          SafetensorsMetadata* metadata = nullptr);

class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::filesystem::path& file);

  const TensorInfo* find(std::string_view name) const;
  std::span<const std::byte> data(const TensorInfo& tensor) const;
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const SafetensorsMetadata& metadata() const { return metadata_; }
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  MappedFile map_;
  std::vector<TensorInfo> tensors_;
  SafetensorsMetadata metadata_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace attnscope
