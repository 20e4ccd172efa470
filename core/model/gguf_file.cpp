#include "model/gguf_file.h"

#include <cstring>
#include <limits>

#include "base/error.h"

// Sections: a bounds-checked cursor over the bytes; metadata values; the tensor table; the
// whole file (header, metadata, tensors, data); GgufFile's look-ups.

namespace attnscope {
namespace {

constexpr uint32_t kMaxDims = 4;  // GGML_MAX_DIMS

class Cursor {
 public:
  Cursor(std::span<const std::byte> bytes, const std::string& source) : bytes_(bytes), source_(source) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(source_ + ": not a valid GGUF file: " + what + " (at byte " + std::to_string(at_) + ")");
  }
  size_t at() const { return at_; }
  size_t left() const { return bytes_.size() - at_; }

  template <typename T>
  T read(const char* what) {
    if (left() < sizeof(T)) fail(std::string("the file ends inside ") + what);
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));  // the format is little-endian, as this machine
    at_ += sizeof(T);
    return value;
  }

  // A count of items that each take at least `least` bytes: more than the rest of the file holds
  // is refused before anything is allocated for them.
  uint64_t count(const char* what, size_t least) {
    const auto n = read<uint64_t>(what);
    if (least > 0 && n > left() / least)
      fail(std::string(what) + " " + std::to_string(n) + " is more than the file holds");
    return n;
  }

  std::string string(const char* what) {
    const uint64_t length = count(what, 1);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), length);
    at_ += length;
    return s;
  }

 private:
  std::span<const std::byte> bytes_;
  const std::string& source_;
  size_t at_ = 0;
};

using Kind = GgufValue::Kind;

// The bytes a value of this kind takes at least (strings and arrays: their 8-byte length).
size_t least_size(Kind kind) {
  switch (kind) {
    case Kind::U8:
    case Kind::I8:
    case Kind::Bool: return 1;
    case Kind::U16:
    case Kind::I16: return 2;
    case Kind::U32:
    case Kind::I32:
    case Kind::F32: return 4;
    default: return 8;
  }
}

Kind read_kind(Cursor& in, const char* what) {
  const auto kind = in.read<uint32_t>(what);
  if (kind > static_cast<uint32_t>(Kind::F64)) in.fail("unknown metadata value type " + std::to_string(kind));
  return static_cast<Kind>(kind);
}

GgufValue read_value(Cursor& in, Kind kind, int depth);

GgufValue read_array(Cursor& in, int depth) {
  // Arrays of arrays are allowed by the format; nesting deeper than this is an attack, not a model.
  if (depth > 8) in.fail("arrays nested more than 8 deep");
  const Kind element = read_kind(in, "an array's element type");
  const uint64_t n = in.count("an array's length", least_size(element));
  std::vector<GgufValue> items;
  items.reserve(n);
  for (uint64_t i = 0; i < n; ++i) items.push_back(read_value(in, element, depth + 1));
  return {Kind::Array, std::move(items)};
}

GgufValue read_value(Cursor& in, Kind kind, int depth) {
  switch (kind) {
    case Kind::U8: return {kind, uint64_t{in.read<uint8_t>("a value")}};
    case Kind::I8: return {kind, int64_t{in.read<int8_t>("a value")}};
    case Kind::U16: return {kind, uint64_t{in.read<uint16_t>("a value")}};
    case Kind::I16: return {kind, int64_t{in.read<int16_t>("a value")}};
    case Kind::U32: return {kind, uint64_t{in.read<uint32_t>("a value")}};
    case Kind::I32: return {kind, int64_t{in.read<int32_t>("a value")}};
    case Kind::U64: return {kind, in.read<uint64_t>("a value")};
    case Kind::I64: return {kind, in.read<int64_t>("a value")};
    case Kind::F32: return {kind, double{in.read<float>("a value")}};
    case Kind::F64: return {kind, in.read<double>("a value")};
    case Kind::Bool: {
      const auto b = in.read<uint8_t>("a value");
      if (b > 1) in.fail("a boolean that is " + std::to_string(b));
      return {kind, b == 1};
    }
    case Kind::String: return {kind, in.string("a string's length")};
    case Kind::Array: return read_array(in, depth);
  }
  in.fail("unknown metadata value type");
}

GgufTensor read_tensor_info(Cursor& in) {
  GgufTensor t;
  t.name = in.string("a tensor's name length");
  const auto n_dims = in.read<uint32_t>("a tensor's dimension count");
  if (n_dims == 0 || n_dims > kMaxDims)
    in.fail("tensor " + t.name + " has " + std::to_string(n_dims) + " dimensions (1 to 4)");
  int64_t numel = 1;
  for (uint32_t d = 0; d < n_dims; ++d) {
    const auto size = in.read<uint64_t>("a tensor's dimensions");
    if (size == 0 || size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / numel))
      in.fail("tensor " + t.name + " has a dimension of " + std::to_string(size));
    numel *= static_cast<int64_t>(size);
    t.dims.push_back(static_cast<int64_t>(size));
  }
  const auto type = in.read<uint32_t>("a tensor's type");
  t.type = ggml_type(type);
  if (!t.type)
    in.fail("tensor " + t.name + " has ggml type " + std::to_string(type) + ", which this reader does not know");
  if (t.dims[0] % t.type->block_elements != 0)
    in.fail("tensor " + t.name + "'s rows of " + std::to_string(t.dims[0]) + " are not whole " +
            std::string(t.type->name) + " blocks of " + std::to_string(t.type->block_elements));
  const auto blocks = static_cast<uint64_t>(numel / t.type->block_elements);
  if (blocks > std::numeric_limits<size_t>::max() / t.type->block_bytes) in.fail("tensor " + t.name + " is too large");
  t.size = blocks * t.type->block_bytes;
  t.offset = in.read<uint64_t>("a tensor's offset");  // from the data section, fixed up below
  return t;
}

// The data section's start, and each tensor's place in it: aligned and inside the file. The format
// does not forbid tensors that share bytes, so that is not checked.
void place_tensors(GgufContents& g, Cursor& in, size_t file_size) {
  const size_t start = (in.at() + g.alignment - 1) / g.alignment * g.alignment;
  if (start > file_size && !g.tensors.empty()) in.fail("the data section starts past the end of the file");
  for (GgufTensor& t : g.tensors) {
    if (t.offset % g.alignment != 0)
      in.fail("tensor " + t.name + "'s offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
              std::to_string(g.alignment));
    if (t.offset > file_size - start || t.size > file_size - start - t.offset)
      in.fail("tensor " + t.name + " (" + std::to_string(t.size) + " bytes at " + std::to_string(t.offset) +
              ") lies past the end of the file");
    t.offset += start;
  }
}

size_t alignment_of(const std::map<std::string, GgufValue>& metadata, Cursor& in) {
  const auto it = metadata.find("general.alignment");
  if (it == metadata.end()) return 32;
  const auto* value = std::get_if<uint64_t>(&it->second.value);
  if (!value || *value == 0 || (*value & (*value - 1)) != 0 || *value > (1u << 20))
    in.fail("general.alignment is not a power of two up to 2^20");
  return static_cast<size_t>(*value);
}

}  // namespace

std::string_view gguf_kind_name(GgufValue::Kind kind) {
  static constexpr std::string_view names[] = {"uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
                                               "bool",  "string", "array",  "uint64", "int64",  "float64"};
  return names[static_cast<uint32_t>(kind)];
}

int64_t GgufTensor::numel() const {
  int64_t n = 1;
  for (const int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> GgufTensor::shape() const { return {dims.rbegin(), dims.rend()}; }

GgufContents parse_gguf(std::span<const std::byte> file, const std::string& source) {
  Cursor in(file, source);
  if (file.size() < 4 || std::memcmp(file.data(), "GGUF", 4) != 0)
    throw Error(source + ": not a GGUF file (it does not start with \"GGUF\")");
  in.read<uint32_t>("the magic");
  GgufContents g;
  g.version = in.read<uint32_t>("the version");
  if (g.version != 2 && g.version != 3)
    in.fail("version " + std::to_string(g.version) + " (this reader reads versions 2 and 3)");
  // Each tensor takes at least 8 + 4 + 8 + 4 + 8 bytes of the table, each key/value 8 + 4 + 1.
  const uint64_t n_tensors = in.count("the tensor count", 32);
  const uint64_t n_values = in.count("the metadata count", 13);
  for (uint64_t i = 0; i < n_values; ++i) {
    std::string key = in.string("a metadata key's length");
    const Kind kind = read_kind(in, "a metadata value's type");
    GgufValue value = read_value(in, kind, 0);
    if (!g.metadata.emplace(std::move(key), std::move(value)).second) in.fail("a metadata key appears twice");
  }
  g.alignment = alignment_of(g.metadata, in);
  g.tensors.reserve(n_tensors);
  for (uint64_t i = 0; i < n_tensors; ++i) g.tensors.push_back(read_tensor_info(in));
  place_tensors(g, in, file.size());
  return g;
}

GgufFile::GgufFile(const std::filesystem::path& file)
    : source_(file.string()), map_(file), contents_(parse_gguf(map_.bytes(), source_)) {}

const GgufValue* GgufFile::find(std::string_view key) const {
  const auto it = contents_.metadata.find(std::string(key));
  return it == contents_.metadata.end() ? nullptr : &it->second;
}

const GgufTensor* GgufFile::find_tensor(std::string_view name) const {
  for (const GgufTensor& t : contents_.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::span<const std::byte> GgufFile::data(const GgufTensor& tensor) const {
  return map_.bytes().subspan(tensor.offset, tensor.size);
}

namespace {

[[noreturn]] void wrong_kind(const std::string& source, std::string_view key, const GgufValue& v, const char* wanted) {
  throw Error(source + ": metadata " + std::string(key) + " is a " + std::string(gguf_kind_name(v.kind)) + ", not " +
              wanted);
}

double as_real(const GgufValue& v, const std::string& source, std::string_view key) {
  if (const auto* u = std::get_if<uint64_t>(&v.value)) return static_cast<double>(*u);
  if (const auto* i = std::get_if<int64_t>(&v.value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v.value)) return *d;
  wrong_kind(source, key, v, "a number");
}

}  // namespace

uint64_t GgufFile::get_uint(std::string_view key, uint64_t fallback) const {
  const GgufValue* v = find(key);
  if (!v) return fallback;
  if (const auto* u = std::get_if<uint64_t>(&v->value)) return *u;
  if (const auto* i = std::get_if<int64_t>(&v->value); i && *i >= 0) return static_cast<uint64_t>(*i);
  wrong_kind(source_, key, *v, "an unsigned integer");
}

double GgufFile::get_real(std::string_view key, double fallback) const {
  const GgufValue* v = find(key);
  return v ? as_real(*v, source_, key) : fallback;
}

std::string GgufFile::get_string(std::string_view key, const std::string& fallback) const {
  const GgufValue* v = find(key);
  if (!v) return fallback;
  if (const auto* s = std::get_if<std::string>(&v->value)) return *s;
  wrong_kind(source_, key, *v, "a string");
}

std::vector<std::string> GgufFile::get_strings(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return {};
  const auto* items = std::get_if<std::vector<GgufValue>>(&v->value);
  std::vector<std::string> out;
  if (!items) wrong_kind(source_, key, *v, "an array of strings");
  out.reserve(items->size());
  for (const GgufValue& item : *items) {
    const auto* s = std::get_if<std::string>(&item.value);
    if (!s) wrong_kind(source_, key, item, "a string (in an array of strings)");
    out.push_back(*s);
  }
  return out;
}

std::vector<double> GgufFile::get_reals(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return {};
  const auto* items = std::get_if<std::vector<GgufValue>>(&v->value);
  if (!items) wrong_kind(source_, key, *v, "an array of numbers");
  std::vector<double> out;
  out.reserve(items->size());
  for (const GgufValue& item : *items) out.push_back(as_real(item, source_, key));
  return out;
}

std::vector<float> GgufFile::dequantized(const GgufTensor& tensor) const {
  std::vector<float> out(static_cast<size_t>(tensor.numel()));
  try {
    dequantize(*tensor.type, data(tensor), out);
  } catch (const Error& e) {
    throw Error(source_ + ": tensor " + tensor.name + ": " + e.what());
  }
  return out;
}

}  // namespace attnscope
