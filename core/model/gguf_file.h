#pragma once
// Our own reader of GGUF, llama.cpp's one-file format (versions 2 and 3, little-endian), over a
// memory map: "GGUF", the version, the tensor and metadata counts; the metadata (typed keys and
// values, arrays included); the tensor table (name, dimensions, ggml type, offset); then the data,
// which starts at the next multiple of general.alignment (32 when absent). Every count, length,
// offset and size is checked against the file before it is used, and anything wrong is one line
// (attnscope::Error) naming the file and what is wrong.
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/mapped_file.h"
#include "model/ggml_types.h"

namespace attnscope {

// A metadata value: a number (integers of every width, reals, booleans), a string, or an array of
// values (whose elements all have one type).
struct GgufValue {
  enum class Kind : uint32_t { U8, I8, U16, I16, U32, I32, F32, Bool, String, Array, U64, I64, F64 };
  Kind kind = Kind::U32;
  std::variant<uint64_t, int64_t, double, bool, std::string, std::vector<GgufValue>> value;
};
std::string_view gguf_kind_name(GgufValue::Kind kind);

struct GgufTensor {
  std::string name;
  std::vector<int64_t> dims;  // ggml's order: dims[0] varies fastest (PyTorch's last dimension)
  const GgmlType* type = nullptr;
  size_t offset = 0;  // from the start of the file
  size_t size = 0;    // bytes

  int64_t numel() const;
  std::vector<int64_t> shape() const;  // PyTorch's order
};

// Parses and checks the whole of a GGUF file held in `file`; `source` names it in messages.
struct GgufContents {
  uint32_t version = 3;
  size_t alignment = 32;
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensor> tensors;
};
GgufContents parse_gguf(std::span<const std::byte> file, const std::string& source);

class GgufFile {
 public:
  explicit GgufFile(const std::filesystem::path& file);

  uint32_t version() const { return contents_.version; }
  const std::map<std::string, GgufValue>& metadata() const { return contents_.metadata; }
  const std::vector<GgufTensor>& tensors() const { return contents_.tensors; }
  const std::string& source() const { return source_; }

  const GgufValue* find(std::string_view key) const;
  const GgufTensor* find_tensor(std::string_view name) const;
  std::span<const std::byte> data(const GgufTensor& tensor) const;

  // Typed look-ups: the value under `key` converted to what is asked, `fallback` when absent;
  // one line naming key and kinds when it is there with another kind.
  uint64_t get_uint(std::string_view key, uint64_t fallback) const;
  double get_real(std::string_view key, double fallback) const;
  std::string get_string(std::string_view key, const std::string& fallback = {}) const;
  std::vector<std::string> get_strings(std::string_view key) const;  // empty when absent
  std::vector<double> get_reals(std::string_view key) const;         // numbers of any kind

  // The tensor's values as float32, in ggml's order (dims[0] fastest).
  std::vector<float> dequantized(const GgufTensor& tensor) const;

 private:
  std::string source_;
  MappedFile map_;
  GgufContents contents_;
};

}  // namespace attnscope
