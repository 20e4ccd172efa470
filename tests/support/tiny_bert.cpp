#include "support/tiny_bert.h"

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include "support/paths.h"

namespace attnscope::test {
namespace {

float round_to(DType dtype, float v) {
  if (dtype == DType::F16) return static_cast<float>(c10::Half(v));
  if (dtype == DType::BF16) return static_cast<float>(c10::BFloat16(v));
  return v;
}

std::string encode_values(const std::vector<float>& values, DType dtype) {
  std::string out;
  for (float v : values) {
    if (dtype == DType::F32) {
      out.append(reinterpret_cast<const char*>(&v), 4);
    } else if (dtype == DType::F64) {
      const double wide = v;
      out.append(reinterpret_cast<const char*>(&wide), 8);
    } else {
      const uint16_t bits = dtype == DType::F16 ? c10::Half(v).x : c10::BFloat16(v).x;
      out.append(reinterpret_cast<const char*>(&bits), 2);
    }
  }
  return out;
}

using Matrix = std::vector<std::vector<double>>;

const NamedTensor& get(const std::map<std::string, NamedTensor>& w, const std::string& name) { return w.at(name); }

// y[i] = x[i] W^T + b, with W stored [out][in] as in PyTorch's Linear.
Matrix linear(const Matrix& x, const NamedTensor& weight, const NamedTensor& bias) {
  const int64_t out = weight.shape[0], in = weight.shape[1];
  Matrix y(x.size(), std::vector<double>(static_cast<size_t>(out)));
  for (size_t i = 0; i < x.size(); ++i)
    for (int64_t o = 0; o < out; ++o) {
      double s = bias.values[static_cast<size_t>(o)];
      for (int64_t k = 0; k < in; ++k)
        s += x[i][static_cast<size_t>(k)] * weight.values[static_cast<size_t>(o * in + k)];
      y[i][static_cast<size_t>(o)] = s;
    }
  return y;
}

Matrix layer_norm(const Matrix& x, const NamedTensor& gamma, const NamedTensor& beta, double eps) {
  Matrix y = x;
  for (auto& row : y) {
    double mean = 0, var = 0;
    for (double v : row) mean += v;
    mean /= static_cast<double>(row.size());
    for (double v : row) var += (v - mean) * (v - mean);
    var /= static_cast<double>(row.size());
    for (size_t k = 0; k < row.size(); ++k)
      row[k] = (row[k] - mean) / std::sqrt(var + eps) * gamma.values[k] + beta.values[k];
  }
  return y;
}

Matrix add(Matrix a, const Matrix& b) {
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t k = 0; k < a[i].size(); ++k) a[i][k] += b[i][k];
  return a;
}

}  // namespace

const std::vector<std::string>& tiny_vocab() {
  static const std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat",
                                                 "sat",   "on",    "mat",   ".",     "##s",    "dog", "a"};
  return vocab;
}

nlohmann::json tiny_bert_config(const TinyBertSpec& s) {
  return {{"model_type", "bert"},
          {"vocab_size", tiny_vocab().size()},
          {"hidden_size", s.hidden},
          {"num_hidden_layers", s.layers},
          {"num_attention_heads", s.heads},
          {"intermediate_size", s.intermediate},
          {"max_position_embeddings", s.max_positions},
          {"type_vocab_size", s.type_vocab},
          {"layer_norm_eps", 1e-12},
          {"hidden_act", "gelu"}};
}

std::vector<NamedTensor> tiny_bert_tensors(const TinyBertSpec& s) {
  std::mt19937 rng(s.seed);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  std::vector<NamedTensor> out;
  const auto add = [&](const std::string& name, std::vector<int64_t> shape, float offset = 0.0f) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> values(static_cast<size_t>(n));
    for (float& v : values) v = round_to(s.dtype, offset + normal(rng));
    std::string stored = s.bert_prefix ? "bert." + name : name;
    if (s.gamma_beta && stored.find("LayerNorm") != std::string::npos) {
      if (stored.ends_with(".weight")) stored.replace(stored.size() - 7, 7, ".gamma");
      if (stored.ends_with(".bias")) stored.replace(stored.size() - 5, 5, ".beta");
    }
    out.push_back({stored, std::move(shape), std::move(values)});
  };
  const int64_t V = static_cast<int64_t>(tiny_vocab().size()), D = s.hidden, I = s.intermediate;
  add("embeddings.word_embeddings.weight", {V, D});
  add("embeddings.position_embeddings.weight", {s.max_positions, D});
  add("embeddings.token_type_embeddings.weight", {s.type_vocab, D});
  add("embeddings.LayerNorm.weight", {D}, 1.0f);
  add("embeddings.LayerNorm.bias", {D});
  for (int64_t l = 0; l < s.layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    for (const char* m : {"query", "key", "value"}) {
      add(p + "attention.self." + m + ".weight", {D, D});
      add(p + "attention.self." + m + ".bias", {D});
    }
    add(p + "attention.output.dense.weight", {D, D});
    add(p + "attention.output.dense.bias", {D});
    add(p + "attention.output.LayerNorm.weight", {D}, 1.0f);
    add(p + "attention.output.LayerNorm.bias", {D});
    add(p + "intermediate.dense.weight", {I, D});
    add(p + "intermediate.dense.bias", {I});
    add(p + "output.dense.weight", {D, I});
    add(p + "output.dense.bias", {D});
    add(p + "output.LayerNorm.weight", {D}, 1.0f);
    add(p + "output.LayerNorm.bias", {D});
  }
  if (s.bert_prefix) add("cls.predictions.bias", {V});
  return out;
}

std::string safetensors_bytes(const nlohmann::json& header, const std::string& data) {
  const std::string text = header.dump();
  const uint64_t size = text.size();
  std::string out(reinterpret_cast<const char*>(&size), 8);  // little-endian on every machine we build for
  return out + text + data;
}

void write_safetensors(const std::filesystem::path& file, const std::vector<NamedTensor>& tensors, DType dtype) {
  nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
  std::string data;
  for (const auto& t : tensors) {
    const DType stored = t.dtype.value_or(dtype);
    const std::string bytes = encode_values(t.values, stored);
    header[t.name] = {{"dtype", std::string(dtype_name(stored))},
                      {"shape", t.shape},
                      {"data_offsets", {data.size(), data.size() + bytes.size()}}};
    data += bytes;
  }
  write_text(file, safetensors_bytes(header, data));
}

void write_tiny_bert(const std::filesystem::path& dir, const TinyBertSpec& spec) {
  std::filesystem::create_directories(dir);
  write_text(dir / "config.json", tiny_bert_config(spec).dump(2));
  std::string vocab;
  for (const auto& t : tiny_vocab()) vocab += t + "\n";
  write_text(dir / "vocab.txt", vocab);
  write_safetensors(dir / "model.safetensors", tiny_bert_tensors(spec), spec.dtype);
}

ReferenceForward reference_forward(const TinyBertSpec& spec, const std::vector<int64_t>& ids) {
  TinyBertSpec plain = spec;
  plain.bert_prefix = plain.gamma_beta = false;
  std::map<std::string, NamedTensor> w;
  for (auto& t : tiny_bert_tensors(plain)) w[t.name] = t;
  const size_t n = ids.size(), D = static_cast<size_t>(spec.hidden), H = static_cast<size_t>(spec.heads), d = D / H;

  Matrix x(n, std::vector<double>(D));
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < D; ++k)
      x[i][k] = get(w, "embeddings.word_embeddings.weight").values[static_cast<size_t>(ids[i]) * D + k] +
                get(w, "embeddings.position_embeddings.weight").values[i * D + k] +
                get(w, "embeddings.token_type_embeddings.weight").values[k];
  x = layer_norm(x, get(w, "embeddings.LayerNorm.weight"), get(w, "embeddings.LayerNorm.bias"), 1e-12);

  ReferenceForward ref;
  for (int64_t l = 0; l < spec.layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    const Matrix q = linear(x, get(w, p + "attention.self.query.weight"), get(w, p + "attention.self.query.bias"));
    const Matrix k = linear(x, get(w, p + "attention.self.key.weight"), get(w, p + "attention.self.key.bias"));
    const Matrix v = linear(x, get(w, p + "attention.self.value.weight"), get(w, p + "attention.self.value.bias"));
    Matrix merged(n, std::vector<double>(D));
    ref.attention.emplace_back();
    ref.outputs.emplace_back();
    for (size_t h = 0; h < H; ++h) {
      Matrix a(n, std::vector<double>(n)), c(n, std::vector<double>(d));
      for (size_t i = 0; i < n; ++i) {
        double max = -1e300, sum = 0;
        for (size_t j = 0; j < n; ++j) {
          double s = 0;
          for (size_t e = 0; e < d; ++e) s += q[i][h * d + e] * k[j][h * d + e];
          a[i][j] = s / std::sqrt(static_cast<double>(d));
          max = std::max(max, a[i][j]);
        }
        for (size_t j = 0; j < n; ++j) sum += (a[i][j] = std::exp(a[i][j] - max));
        for (size_t j = 0; j < n; ++j) a[i][j] /= sum;
        for (size_t e = 0; e < d; ++e) {
          for (size_t j = 0; j < n; ++j) c[i][e] += a[i][j] * v[j][h * d + e];
          merged[i][h * d + e] = c[i][e];
        }
      }
      ref.attention.back().push_back(a);
      ref.outputs.back().push_back(c);
    }
    const Matrix attended = layer_norm(
        add(linear(merged, get(w, p + "attention.output.dense.weight"), get(w, p + "attention.output.dense.bias")), x),
        get(w, p + "attention.output.LayerNorm.weight"), get(w, p + "attention.output.LayerNorm.bias"), 1e-12);
    Matrix inner = linear(attended, get(w, p + "intermediate.dense.weight"), get(w, p + "intermediate.dense.bias"));
    for (auto& row : inner)
      for (double& u : row) u = 0.5 * u * (1.0 + std::erf(u / std::sqrt(2.0)));
    x = layer_norm(add(linear(inner, get(w, p + "output.dense.weight"), get(w, p + "output.dense.bias")), attended),
                   get(w, p + "output.LayerNorm.weight"), get(w, p + "output.LayerNorm.bias"), 1e-12);
  }
  ref.last_hidden = x;
  return ref;
}

}  // namespace attnscope::test
