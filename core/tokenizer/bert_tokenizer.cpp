#include "tokenizer/bert_tokenizer.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_file.h"
#include "tokenizer/char_classes.h"
#include "tokenizer/pre_tokenizer.h"

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

std::vector<int64_t> Encoding::ids() const {
  std::vector<int64_t> out;
  out.reserve(tokens.size());
  for (const Token& t : tokens) out.push_back(t.id);
  return out;
}

BertTokenizer::BertTokenizer(Vocab vocab, NormalizerOptions options)
    : vocab_(std::move(vocab)),
      options_(options),
      wordpiece_(vocab_),
      cls_id_(vocab_.required_id("[CLS]")),
      sep_id_(vocab_.required_id("[SEP]")),
      pad_id_(vocab_.required_id("[PAD]")) {
  for (std::string_view name : kSpecialNames)
    if (vocab_.find(name)) specials_.emplace_back(name);
}

std::unique_ptr<BertTokenizer> BertTokenizer::from_folder(const std::filesystem::path& dir) {
  const auto vocab_file = dir / "vocab.txt";
  if (!std::filesystem::exists(vocab_file))
    throw Error(vocab_file.string() + ": missing (a BERT checkpoint folder needs vocab.txt)");
  return std::make_unique<BertTokenizer>(Vocab::load(vocab_file), read_tokenizer_config(dir / "tokenizer_config.json"));
}

void BertTokenizer::tokenize_chunk(const CharString& chars, size_t first, size_t last, std::vector<Token>& out) const {
  // A long text is normalised and split a segment at a time, each ending just after a whitespace
  // character: the same pieces (a word never spans whitespace, and the normalisation works
  // character by character, reordering accents only within a run of combining marks, which
  // whitespace ends), without three full-length copies of the text's characters at once
  // (`attnscope-cli tokenize` of 10 MB peaked at 1.06 GB in one piece, 0.79 GB in segments).
  for (size_t begin = first; begin < last;) {
    size_t end = std::min(last, begin + kSegmentChars);
    while (end < last && !is_bert_whitespace(chars[end - 1].cp)) ++end;
    const CharString segment(chars.begin() + static_cast<std::ptrdiff_t>(begin),
                             chars.begin() + static_cast<std::ptrdiff_t>(end));
    const CharString normalized = normalize_bert(segment, options_);
    for (const CharSpan& word : split_words(normalized))
      wordpiece_.tokenize(normalized.data() + word.first, normalized.data() + word.last, out);
    begin = end;
  }
}

std::vector<Token> BertTokenizer::tokenize(std::string_view text) const {
  const CharString chars = decode_utf8(text);
  std::vector<Token> out;
  // Special tokens are matched in the raw text, leftmost and longest first, before normalisation.
  size_t chunk_start = 0;
  for (size_t i = 0; i < chars.size(); ++i) {
    if (chars[i].cp != U'[') continue;
    const std::string_view rest = text.substr(chars[i].begin);
    const std::string* match = nullptr;
    for (const std::string& s : specials_)
      if (rest.starts_with(s) && (!match || s.size() > match->size())) match = &s;
    if (!match) continue;
    tokenize_chunk(chars, chunk_start, i, out);
    const auto begin = chars[i].begin;
    out.push_back({*vocab_.find(*match), *match, begin, static_cast<uint32_t>(begin + match->size()), true});
    i += match->size() - 1;  // special tokens are ASCII: one character per byte
    chunk_start = i + 1;
  }
  tokenize_chunk(chars, chunk_start, chars.size(), out);
  return out;
}

Encoding BertTokenizer::wrap(std::vector<Token> pieces, size_t max_length) const {
  if (max_length < 2)
    throw Error("the maximum length must be at least 2 (for [CLS] and [SEP]), got " + std::to_string(max_length));
  Encoding encoding;
  encoding.full_length = pieces.size() + 2;
  encoding.truncated = encoding.full_length > max_length;
  if (encoding.truncated) pieces.resize(max_length - 2);
  const uint32_t end = pieces.empty() ? 0 : pieces.back().end;
  encoding.tokens.reserve(pieces.size() + 2);
  encoding.tokens.push_back({cls_id_, "[CLS]", 0, 0, true});
  for (Token& t : pieces) encoding.tokens.push_back(std::move(t));
  encoding.tokens.push_back({sep_id_, "[SEP]", end, end, true});
  return encoding;
}

}  // namespace attnscope
