#include "io/result_json.h"

#include <ATen/ATen.h>

#include <cstring>

#include "error.h"
#include "io/json_number.h"
#include "io/atomic_file.h"
#include "io/base64.h"
#include "io/json_file.h"

namespace attnscope {
namespace {

constexpr const char* kFormat = "attnscope.text-run";
constexpr int kVersion = 1;

const nlohmann::json& field(const nlohmann::json& json, const char* key, const std::string& where) {
  if (!json.is_object() || !json.contains(key)) throw Error(where + ": missing \"" + key + "\"");
  return json[key];
}

template <typename T>
T typed(const nlohmann::json& json, const char* key, const std::string& where) {
  const auto& v = field(json, key, where);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return json_integer<T>(v, where + ": \"" + key + "\"");
  try {
    return v.get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(where + ": \"" + key + "\" has the wrong type (" + v.dump().substr(0, 40) + ")");
  }
}

nlohmann::json token_to_json(const Token& t, size_t index) {
  return {{"index", index}, {"id", t.id}, {"text", t.text}, {"begin", t.begin}, {"end", t.end}, {"special", t.special}};
}

Token token_from_json(const nlohmann::json& json, const std::string& where) {
  Token t;
  t.id = typed<int32_t>(json, "id", where);
  t.text = typed<std::string>(json, "text", where);
  t.begin = typed<uint32_t>(json, "begin", where);
  t.end = typed<uint32_t>(json, "end", where);
  t.special = typed<bool>(json, "special", where);
  if (t.begin > t.end) throw Error(where + ": begin is after end");
  return t;
}

}  // namespace

nlohmann::json matrix_to_json(const at::Tensor& matrix, MatrixEncoding encoding) {
  const at::Tensor m = matrix.to(at::kCPU, at::kFloat).contiguous();
  const int64_t rows = m.size(0), cols = m.size(1);
  nlohmann::json out = {{"rows", rows}, {"cols", cols}};
  const float* data = m.data_ptr<float>();
  if (encoding == MatrixEncoding::Base64) {
    out["encoding"] = "base64-f32le";
    out["data"] = base64_encode({reinterpret_cast<const std::byte*>(data), static_cast<size_t>(rows * cols) * sizeof(float)});
  } else {
    out["encoding"] = "decimal";
    nlohmann::json table = nlohmann::json::array();
    for (int64_t r = 0; r < rows; ++r) table.push_back(std::vector<float>(data + r * cols, data + (r + 1) * cols));
    out["data"] = std::move(table);
  }
  return out;
}

at::Tensor matrix_from_json(const nlohmann::json& json, int64_t rows, int64_t cols, const std::string& where) {
  if (typed<int64_t>(json, "rows", where) != rows || typed<int64_t>(json, "cols", where) != cols)
    throw Error(where + ": expected a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  at::Tensor m = at::empty({rows, cols}, at::kFloat);
  const auto encoding = typed<std::string>(json, "encoding", where);
  const auto& data = field(json, "data", where);
  if (encoding == "base64-f32le") {
    if (!data.is_string()) throw Error(where + ": \"data\" must be a base64 string");
    std::vector<std::byte> bytes;
    try {
      bytes = base64_decode(data.get_ref<const std::string&>());
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
    if (bytes.size() != static_cast<size_t>(rows * cols) * sizeof(float))
      throw Error(where + ": data holds " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(rows * cols * 4));
    if (!bytes.empty()) std::memcpy(m.data_ptr<float>(), bytes.data(), bytes.size());
  } else if (encoding == "decimal") {
    if (!data.is_array() || static_cast<int64_t>(data.size()) != rows) throw Error(where + ": \"data\" must be " + std::to_string(rows) + " rows");
    float* out = m.data_ptr<float>();
    for (const auto& row : data) {
      if (!row.is_array() || static_cast<int64_t>(row.size()) != cols) throw Error(where + ": every row must have " + std::to_string(cols) + " numbers");
      for (const auto& v : row) {
        *out++ = json_float(v, where + ": a matrix entry");
      }
    }
  } else {
    throw Error(where + ": unknown matrix encoding \"" + encoding + "\" (expected base64-f32le or decimal)");
  }
  return m;
}

nlohmann::json text_run_to_json(const TextRunFile& file, MatrixEncoding encoding) {
  const TextCaptures& c = file.run.captures;
  nlohmann::json tokens = nlohmann::json::array();
  for (size_t i = 0; i < file.run.encoding.tokens.size(); ++i) tokens.push_back(token_to_json(file.run.encoding.tokens[i], i));
  nlohmann::json layers = nlohmann::json::array();
  for (int64_t l = 0; l < c.num_layers; ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (int64_t h = 0; h < c.num_heads; ++h)
      heads.push_back({{"head", h},
                       {"attention", matrix_to_json(c.attention[l][h], encoding)},
                       {"output", matrix_to_json(c.head_outputs[l][h], encoding)}});
    layers.push_back({{"layer", l}, {"heads", std::move(heads)}});
  }
  return {{"format", kFormat},
          {"version", kVersion},
          {"model", {{"path", file.model_path}, {"config", file.model_config}}},
          {"device", file.device},
          {"max_length", file.max_length},
          {"text", file.text},
          {"truncated", file.run.encoding.truncated},
          {"full_length", file.run.encoding.full_length},
          {"tokens", std::move(tokens)},
          {"layers", std::move(layers)}};
}

TextRunFile text_run_from_json(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object() || !json.contains("format") || json["format"] != kFormat)  // value() would throw on a non-string
    throw Error(source + ": not an attnscope result (\"format\" must be \"" + kFormat + "\")");
  if (typed<int>(json, "version", source) != kVersion)
    throw Error(source + ": result version " + json["version"].dump() + " is not supported (this attnscope reads version 1)");
  TextRunFile file;
  const auto& model = field(json, "model", source);
  file.model_path = typed<std::string>(model, "path", source + ": model");
  file.model_config = field(model, "config", source + ": model");
  const BertConfig config = BertConfig::from_json(file.model_config, source + ": model.config");
  file.device = typed<std::string>(json, "device", source);
  file.text = typed<std::string>(json, "text", source);
  file.max_length = typed<size_t>(json, "max_length", source);

  Encoding& e = file.run.encoding;
  e.truncated = typed<bool>(json, "truncated", source);
  e.full_length = typed<size_t>(json, "full_length", source);
  const auto& tokens = field(json, "tokens", source);
  if (!tokens.is_array() || tokens.empty()) throw Error(source + ": \"tokens\" must be a non-empty list");
  for (size_t i = 0; i < tokens.size(); ++i) e.tokens.push_back(token_from_json(tokens[i], source + ": tokens[" + std::to_string(i) + "]"));

  const int64_t n = static_cast<int64_t>(e.tokens.size()), L = config.num_layers, H = config.num_heads, d = config.head_dim();
  const auto& layers = field(json, "layers", source);
  if (!layers.is_array() || static_cast<int64_t>(layers.size()) != L)
    throw Error(source + ": \"layers\" must list the model's " + std::to_string(L) + " layers");
  TextCaptures& c = file.run.captures;
  c.attention = at::empty({L, H, n, n}, at::kFloat);
  c.head_outputs = at::empty({L, H, n, d}, at::kFloat);
  for (int64_t l = 0; l < L; ++l) {
    const std::string lw = source + ": layers[" + std::to_string(l) + "]";
    const auto& heads = field(layers[static_cast<size_t>(l)], "heads", lw);
    if (!heads.is_array() || static_cast<int64_t>(heads.size()) != H) throw Error(lw + ": \"heads\" must list " + std::to_string(H) + " heads");
    for (int64_t h = 0; h < H; ++h) {
      const std::string hw = lw + ".heads[" + std::to_string(h) + "]";
      const auto& head = heads[static_cast<size_t>(h)];
      c.attention[l][h].copy_(matrix_from_json(field(head, "attention", hw), n, n, hw + ".attention"));
      c.head_outputs[l][h].copy_(matrix_from_json(field(head, "output", hw), n, d, hw + ".output"));
    }
  }
  c.num_layers = L;
  c.num_heads = H;
  c.length = n;
  c.head_dim = d;
  c.hidden_size = config.hidden_size;
  return file;
}

void save_text_run(const std::filesystem::path& path, const TextRunFile& file, MatrixEncoding encoding) {
  const std::string text = text_run_to_json(file, encoding).dump() + "\n";
  write_file_atomically(path, text);
}

TextRunFile load_text_run(const std::filesystem::path& path) {
  return text_run_from_json(read_json_file(path), path.string());
}

}  // namespace attnscope
