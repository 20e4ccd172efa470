#include "tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_file.h"
#include "tokenizer/bert_tokenizer.h"
#include "tokenizer/tokenizer_pipeline.h"

namespace attnscope {

std::vector<int64_t> Encoding::ids() const {
  std::vector<int64_t> out;
  out.reserve(tokens.size());
  for (const Token& t : tokens) out.push_back(t.id);
  return out;
}

namespace {

std::string model_type(const nlohmann::json& json) {
  if (json.is_object() && json.contains("model") && json["model"].is_object() && json["model"].contains("type") &&
      json["model"]["type"].is_string())
    return json["model"]["type"].get<std::string>();
  return {};
}

// A WordPiece tokenizer.json without vocab.txt: its vocabulary and BertNormalizer options.
std::unique_ptr<TokenizerPipeline> wordpiece_from_json(const nlohmann::json& json, const std::string& source) {
  const auto& vocab = json["model"].value("vocab", nlohmann::json());
  if (!vocab.is_object()) throw Error(source + ": the WordPiece model has no vocab object");
  std::vector<std::string> tokens(vocab.size());
  for (const auto& [text, id] : vocab.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || static_cast<size_t>(id.get<int64_t>()) >= tokens.size())
      throw Error(source + ": vocabulary entry \"" + text + "\" has id " + id.dump() +
                  " (ids must run from 0 to the vocabulary's size - 1)");
    tokens[static_cast<size_t>(id.get<int64_t>())] = text;
  }
  NormalizerOptions options;
  const auto& n = json.value("normalizer", nlohmann::json());
  if (json_member(n, "type") != "BertNormalizer")
    throw Error(source + ": a WordPiece model needs the BertNormalizer (found " +
                (n.is_object() ? json_member(n, "type") : n).dump() + ")");
  const std::string where = source + ": the BertNormalizer";
  options.lowercase = json_optional<bool>(n, "lowercase", true, where);
  options.strip_accents = json_optional<bool>(n, "strip_accents", options.lowercase, where);  // null: as lowercase
  options.handle_cjk = json_optional<bool>(n, "handle_chinese_chars", true, where);
  return bert_tokenizer(Vocab::from_tokens(std::move(tokens)), options);
}

}  // namespace

std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& dir) {
  const auto json_file = dir / "tokenizer.json";
  const bool has_vocab = std::filesystem::exists(dir / "vocab.txt");
  if (!std::filesystem::exists(json_file)) {
    if (has_vocab) return load_bert_tokenizer(dir);
    for (const char* model : {"spiece.model", "sentencepiece.bpe.model", "tokenizer.model"})
      if (std::filesystem::exists(dir / model))
        throw Error(dir.string() + ": has " + model +
                    " but no tokenizer.json; attnscope reads SentencePiece tokenizers from tokenizer.json "
                    "(transformers writes one: AutoTokenizer.from_pretrained(folder).save_pretrained(folder))");
    throw Error(dir.string() + ": no tokenizer.json or vocab.txt (a checkpoint folder needs one of them)");
  }
  const nlohmann::json json = read_json_file(json_file);
  const std::string type = model_type(json);
  if (type == "WordPiece") {
    auto wordpiece = has_vocab ? load_bert_tokenizer(dir) : wordpiece_from_json(json, json_file.string());
    // MPNet wraps BERT's pieces in <s> and </s>, and recognises its own added tokens (<mask>).
    if (json_member(json.value("post_processor", nlohmann::json()), "type") == "RobertaProcessing")
      return TokenizerPipeline::with_template_of(std::move(wordpiece), json, json_file.string());
    return wordpiece;
  }
  return TokenizerPipeline::from_json(json, json_file.string());
}

}  // namespace attnscope
