#include "model/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "base/error.h"

namespace attnscope {
namespace {

constexpr std::array<std::pair<std::string_view, DType>, 15> kDTypes = {{
    {"BOOL", DType::BOOL},
    {"U8", DType::U8},
    {"I8", DType::I8},
    {"I16", DType::I16},
    {"U16", DType::U16},
    {"F16", DType::F16},
    {"BF16", DType::BF16},
    {"I32", DType::I32},
    {"U32", DType::U32},
    {"F32", DType::F32},
    {"F64", DType::F64},
    {"I64", DType::I64},
    {"U64", DType::U64},
    {"F8_E4M3", DType::F8_E4M3},
    {"F8_E5M2", DType::F8_E5M2},
}};

// Headers beyond this are not safetensors files written by any real tool; refuse before parsing.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

uint64_t read_le64(const std::byte* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

TensorInfo parse_entry(const std::string& name, const nlohmann::json& entry, size_t data_start, size_t data_size,
                       const std::string& source) {
  const auto fail = [&](const std::string& what) -> Error { return Error(source + ": tensor " + name + ": " + what); };
  if (!entry.is_object()) throw fail("header entry is not an object");
  TensorInfo t;
  t.name = name;
  const auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string()) throw fail("missing \"dtype\"");
  const auto found =
      std::find_if(kDTypes.begin(), kDTypes.end(), [&](const auto& d) { return d.first == dtype->get<std::string>(); });
  if (found == kDTypes.end()) throw fail("unknown dtype " + dtype->dump());
  t.dtype = found->second;

  const auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array()) throw fail("missing \"shape\"");
  uint64_t numel = 1;
  for (const auto& dim : *shape) {
    if (!dim.is_number_unsigned() || dim.get<uint64_t>() > (uint64_t{1} << 40))
      throw fail("shape " + shape->dump() + " is not a list of sizes");
    const uint64_t d = dim.get<uint64_t>();
    if (d != 0 && numel > std::numeric_limits<uint64_t>::max() / d / 8)
      throw fail("shape " + shape->dump() + " is too large");
    numel *= d;
    t.shape.push_back(static_cast<int64_t>(d));
  }

  const auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
      !(*offsets)[1].is_number_unsigned())
    throw fail("\"data_offsets\" must be two byte offsets");
  const uint64_t begin = (*offsets)[0].get<uint64_t>(), end = (*offsets)[1].get<uint64_t>();
  if (begin > end || end > data_size)
    throw fail("data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] lie outside the " +
               std::to_string(data_size) + " data bytes of the file");
  const uint64_t expected = numel * dtype_size(t.dtype);
  if (end - begin != expected)
    throw fail("holds " + std::to_string(end - begin) + " bytes, but shape " + shape->dump() + " of " +
               std::string(dtype_name(t.dtype)) + " needs " + std::to_string(expected));
  t.offset = data_start + static_cast<size_t>(begin);
  t.size = static_cast<size_t>(end - begin);
  return t;
}

}  // namespace

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::BOOL:
    case DType::U8:
    case DType::I8:
    case DType::F8_E4M3:
    case DType::F8_E5M2: return 1;
    case DType::I16:
    case DType::U16:
    case DType::F16:
    case DType::BF16: return 2;
    case DType::I32:
    case DType::U32:
    case DType::F32: return 4;
    case DType::F64:
    case DType::I64:
    case DType::U64: return 8;
  }
  return 1;
}

std::string_view dtype_name(DType dtype) {
  for (const auto& [name, d] : kDTypes)
    if (d == dtype) return name;
  return "?";
}

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<TensorInfo> parse_safetensors(std::span<const std::byte> file, const std::string& source,
                                          SafetensorsMetadata* metadata) {
  if (file.size() < 8)
    throw Error(source + ": too short to be a safetensors file (" + std::to_string(file.size()) + " bytes)");
  const uint64_t header_size = read_le64(file.data());
  if (header_size > kMaxHeaderBytes || header_size > file.size() - 8)
    throw Error(source + ": header length " + std::to_string(header_size) + " does not fit in the file of " +
                std::to_string(file.size()) + " bytes (truncated or not a safetensors file)");
  const auto* text = reinterpret_cast<const char*>(file.data() + 8);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, text + header_size);
  } catch (const nlohmann::json::exception& e) {
    throw Error(source + ": header is not valid JSON (" + e.what() + ")");
  }
  if (!header.is_object()) throw Error(source + ": header is not a JSON object");

  const size_t data_start = 8 + static_cast<size_t>(header_size);
  const size_t data_size = file.size() - data_start;
  std::vector<TensorInfo> tensors;
  for (const auto& [name, entry] : header.items())
    if (name != "__metadata__") tensors.push_back(parse_entry(name, entry, data_start, data_size, source));
  if (metadata && header.contains("__metadata__")) {
    const auto& m = header["__metadata__"];
    if (!m.is_object()) throw Error(source + ": \"__metadata__\" must be an object of strings");
    for (const auto& [key, value] : m.items()) {
      if (!value.is_string()) throw Error(source + ": \"__metadata__\" entry \"" + key + "\" is not a string");
      (*metadata)[key] = value.get<std::string>();
    }
  }

  std::vector<const TensorInfo*> by_offset;
  for (const auto& t : tensors)
    if (t.size > 0) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->offset < by_offset[i - 1]->offset + by_offset[i - 1]->size)
      throw Error(source + ": tensors " + by_offset[i - 1]->name + " and " + by_offset[i]->name + " overlap");
  return tensors;
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& file) : source_(file.string()), map_(file) {
  tensors_ = parse_safetensors(map_.bytes(), source_, &metadata_);
  for (size_t i = 0; i < tensors_.size(); ++i) index_.emplace(tensors_[i].name, i);
}

const TensorInfo* SafetensorsFile::find(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

std::span<const std::byte> SafetensorsFile::data(const TensorInfo& tensor) const {
  return map_.bytes().subspan(tensor.offset, tensor.size);
}

}  // namespace attnscope
