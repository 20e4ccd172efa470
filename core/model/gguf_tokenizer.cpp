#include "model/gguf_tokenizer.h"

namespace attnscope {
namespace {

std::optional<int64_t> token_id(const GgufFile& file, const char* key) {
  if (!file.find(key)) return std::nullopt;
  return static_cast<int64_t>(file.get_real(key, -1));
}

}  // namespace

GgufVocabulary read_gguf_vocabulary(const GgufFile& file) {
  GgufVocabulary v;
  v.architecture = file.get_string("general.architecture");
  v.model = file.get_string("tokenizer.ggml.model");
  v.pre = file.get_string("tokenizer.ggml.pre");
  v.tokens = file.get_strings("tokenizer.ggml.tokens");
  v.merges = file.get_strings("tokenizer.ggml.merges");
  v.scores = file.get_reals("tokenizer.ggml.scores");
  for (const double type : file.get_reals("tokenizer.ggml.token_type"))
    v.token_types.push_back(static_cast<int64_t>(type));
  v.bos = token_id(file, "tokenizer.ggml.bos_token_id");
  v.eos = token_id(file, "tokenizer.ggml.eos_token_id");
  v.unk = token_id(file, "tokenizer.ggml.unknown_token_id");
  v.pad = token_id(file, "tokenizer.ggml.padding_token_id");
  if (const GgufValue* add = file.find("tokenizer.ggml.add_bos_token"); add && std::holds_alternative<bool>(add->value))
    v.add_bos = std::get<bool>(add->value);
  return v;
}

std::unique_ptr<Tokenizer> load_gguf_tokenizer(const GgufFile& file) {
  return gguf_tokenizer(read_gguf_vocabulary(file), file.source());
}

}  // namespace attnscope
