#include "results/result_json.h"

#include <ATen/ATen.h>

#include <cstring>

#include "base/error.h"
#include "base/json_fields.h"
#include "base/base64.h"

namespace attnscope {

Token token_from_json(const nlohmann::json& json, const std::string& where) {
  Token t;
  t.id = json_typed<int32_t>(json, "id", where);
  t.text = json_typed<std::string>(json, "text", where);
  t.begin = json_typed<uint32_t>(json, "begin", where);
  t.end = json_typed<uint32_t>(json, "end", where);
  t.special = json_typed<bool>(json, "special", where);
  if (t.begin > t.end) throw Error(where + ": begin is after end");
  return t;
}

at::Tensor matrix_from_json(const nlohmann::json& json, int64_t rows, int64_t cols, const std::string& where) {
  if (json_typed<int64_t>(json, "rows", where) != rows || json_typed<int64_t>(json, "cols", where) != cols)
    throw Error(where + ": expected a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  at::Tensor m = at::empty({rows, cols}, at::kFloat);
  const auto encoding = json_typed<std::string>(json, "encoding", where);
  const auto& data = json_field(json, "data", where);
  if (encoding == "base64-f32le") {
    if (!data.is_string()) throw Error(where + ": \"data\" must be a base64 string");
    std::vector<std::byte> bytes;
    try {
      bytes = base64_decode(data.get_ref<const std::string&>());
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
    if (bytes.size() != static_cast<size_t>(rows * cols) * sizeof(float))
      throw Error(where + ": data holds " + std::to_string(bytes.size()) + " bytes, expected " +
                  std::to_string(rows * cols * 4));
    if (!bytes.empty()) std::memcpy(m.data_ptr<float>(), bytes.data(), bytes.size());
  } else if (encoding == "decimal") {
    if (!data.is_array() || static_cast<int64_t>(data.size()) != rows)
      throw Error(where + ": \"data\" must be " + std::to_string(rows) + " rows");
    float* out = m.data_ptr<float>();
    for (const auto& row : data) {
      if (!row.is_array() || static_cast<int64_t>(row.size()) != cols)
        throw Error(where + ": every row must have " + std::to_string(cols) + " numbers");
      for (const auto& v : row) {
        *out++ = json_float(v, where + ": a matrix entry");
      }
    }
  } else {
    throw Error(where + ": unknown matrix encoding \"" + encoding + "\" (expected base64-f32le or decimal)");
  }
  return m;
}

TextRunFile text_run_header(const nlohmann::json& json, const std::string& source) {
  TextRunFile file;
  const auto& model = json_field(json, "model", source);
  file.model_path = json_typed<std::string>(model, "path", source + ": model");
  file.model_config = json_field(model, "config", source + ": model");
  ModelConfig::from_json(file.model_config, source + ": model.config");  // checked here, used by the caller
  file.device = json_typed<std::string>(json, "device", source);
  file.text = json_typed<std::string>(json, "text", source);
  file.max_length = json_typed<size_t>(json, "max_length", source);

  Encoding& e = file.run.encoding;
  e.truncated = json_typed<bool>(json, "truncated", source);
  e.full_length = json_typed<size_t>(json, "full_length", source);
  const auto& tokens = json_field(json, "tokens", source);
  if (!tokens.is_array() || tokens.empty()) throw Error(source + ": \"tokens\" must be a non-empty list");
  for (size_t i = 0; i < tokens.size(); ++i)
    e.tokens.push_back(token_from_json(tokens[i], source + ": tokens[" + std::to_string(i) + "]"));

  return file;
}

TextRunFile text_run_from_v1_json(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object() || !json.contains("format") ||
      json["format"] != kTextRunFormat)  // value() would throw on a non-string
    throw Error(source + ": not an attnscope result (\"format\" must be \"" + kTextRunFormat + "\")");
  if (json_typed<int>(json, "version", source) != 1) throw Error(source + ": not a version 1 result");
  TextRunFile file = text_run_header(json, source);
  file.version = 1;
  const ModelConfig config = ModelConfig::from_json(file.model_config, source + ": model.config");
  const Encoding& e = file.run.encoding;
  const int64_t n = static_cast<int64_t>(e.tokens.size()), L = config.num_layers, H = config.num_heads,
                d = config.head_dim();
  const auto& layers = json_field(json, "layers", source);
  if (!layers.is_array() || static_cast<int64_t>(layers.size()) != L)
    throw Error(source + ": \"layers\" must list the model's " + std::to_string(L) + " layers");
  TextCaptures& c = file.run.captures;
  c.attention = at::empty({L, H, n, n}, at::kFloat);
  c.head_outputs = at::empty({L, H, n, d}, at::kFloat);
  for (int64_t l = 0; l < L; ++l) {
    const std::string lw = source + ": layers[" + std::to_string(l) + "]";
    const auto& heads = json_field(layers[static_cast<size_t>(l)], "heads", lw);
    if (!heads.is_array() || static_cast<int64_t>(heads.size()) != H)
      throw Error(lw + ": \"heads\" must list " + std::to_string(H) + " heads");
    for (int64_t h = 0; h < H; ++h) {
      const std::string hw = lw + ".heads[" + std::to_string(h) + "]";
      const auto& head = heads[static_cast<size_t>(h)];
      c.attention[l][h].copy_(matrix_from_json(json_field(head, "attention", hw), n, n, hw + ".attention"));
      c.head_outputs[l][h].copy_(matrix_from_json(json_field(head, "output", hw), n, d, hw + ".output"));
    }
  }
  c.num_layers = L;
  c.num_heads = H;
  c.length = n;
  c.head_dim = d;
  c.hidden_size = config.hidden_size;
  return file;
}

}  // namespace attnscope
