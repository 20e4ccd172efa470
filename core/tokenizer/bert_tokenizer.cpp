#include "tokenizer/bert_tokenizer.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_file.h"

namespace attnscope {
namespace {

// The special tokens the reference recognises when they are typed in the text.
constexpr std::string_view kSpecialNames[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

NormalizerOptions read_tokenizer_config(const std::filesystem::path& file) {
  NormalizerOptions options;  // the reference's defaults: lower-case, strip accents, CJK spacing
  if (!std::filesystem::exists(file)) return options;
  const nlohmann::json config = read_json_file(file);
  const auto flag = [&](const char* key, bool fallback) {
    if (!config.contains(key) || config[key].is_null()) return fallback;
    if (!config[key].is_boolean()) throw Error(file.string() + ": \"" + key + "\" must be true, false or null");
    return config[key].get<bool>();
  };
  if (!config.is_object()) throw Error(file.string() + ": expected a JSON object");
  options.lowercase = flag("do_lower_case", true);
  options.strip_accents = flag("strip_accents", options.lowercase);
  options.handle_cjk = flag("tokenize_chinese_chars", true);
  return options;
}

}  // namespace

std::unique_ptr<TokenizerPipeline> bert_tokenizer(Vocab vocab, const NormalizerOptions& options) {
  TokenizerPipeline::Settings s;
  s.normalizer = TextNormalizer::bert(options);
  s.pre_tokenizer = TokenizerPipeline::PreTokenizer::Bert;
  for (std::string_view name : kSpecialNames)
    if (const auto id = vocab.find(name)) s.added.push_back({std::string(name), *id, true});
  const int32_t cls = vocab.required_id("[CLS]"), sep = vocab.required_id("[SEP]");
  vocab.required_id("[PAD]");  // the model's padding: a vocabulary without it is not BERT's
  s.before = {{cls, "[CLS]", 0, 0, true}};
  s.after = {{sep, "[SEP]", 0, 0, true}};
  return std::make_unique<TokenizerPipeline>(WordPiece(std::move(vocab)), std::move(s));
}

std::unique_ptr<TokenizerPipeline> load_bert_tokenizer(const std::filesystem::path& dir) {
  const auto vocab_file = dir / "vocab.txt";
  if (!std::filesystem::exists(vocab_file))
    throw Error(vocab_file.string() + ": missing (a BERT checkpoint folder needs vocab.txt)");
  return bert_tokenizer(Vocab::load(vocab_file), read_tokenizer_config(dir / "tokenizer_config.json"));
}

}  // namespace attnscope
