#pragma once
// A tiny BERT checkpoint with seeded random weights, written by the tests themselves, so the
// loader and the forward pass are tested without any download; plus a plain double-precision
// forward pass of the same weights, written from the definitions, to check ours against.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/safetensors.h"

namespace attnscope::test {

struct TinyBertSpec {
  int64_t layers = 2, heads = 2, hidden = 8, intermediate = 16, max_positions = 16, type_vocab = 2;
  DType dtype = DType::F32;  // F32, F16 or BF16
  bool bert_prefix = false;  // names as "bert.embeddings..." (and a "cls." head to be ignored)
  bool gamma_beta = false;   // LayerNorm parameters named gamma/beta, as old checkpoints do
  uint32_t seed = 7;
};

struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;                  // as stored (already rounded to the spec's dtype)
  std::optional<DType> dtype = std::nullopt;  // stored as this instead of the file's dtype
};

const std::vector<std::string>& tiny_vocab();
std::vector<NamedTensor> tiny_bert_tensors(const TinyBertSpec& spec);
nlohmann::json tiny_bert_config(const TinyBertSpec& spec);

// The bytes of a safetensors file with this header and data section.
std::string safetensors_bytes(const nlohmann::json& header, const std::string& data);
void write_safetensors(const std::filesystem::path& file, const std::vector<NamedTensor>& tensors, DType dtype);
// config.json, vocab.txt, model.safetensors in dir.
void write_tiny_bert(const std::filesystem::path& dir, const TinyBertSpec& spec);

// Plain forward of one text: per layer and head the attention map [n][n] and head output [n][d].
struct ReferenceForward {
  std::vector<std::vector<std::vector<std::vector<double>>>> attention;  // [L][H][n][n]
  std::vector<std::vector<std::vector<std::vector<double>>>> outputs;    // [L][H][n][d]
  std::vector<std::vector<double>> last_hidden;                          // [n][D]
};
ReferenceForward reference_forward(const TinyBertSpec& spec, const std::vector<int64_t>& ids);

}  // namespace attnscope::test
