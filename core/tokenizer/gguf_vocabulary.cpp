#include "tokenizer/gguf_vocabulary.h"

#include <algorithm>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/string_ids.h"
#include "tokenizer/tokenizer_pipeline.h"
#include "tokenizer/utf8.h"

// Sections: spellings (byte-level, Gemma's spaces); merges rebuilt from a vocabulary; the parts of
// the document (added tokens, template); the two kinds of file; the entry points.

namespace attnscope {
namespace {

constexpr int64_t kControl = 3, kUserDefined = 4;  // llama.cpp's token types

std::u32string code_points(const std::string& s) {
  std::u32string out;
  for (const SourceChar& c : decode_utf8(s)) out.push_back(c.cp);
  return out;
}

std::string encode_utf8(std::u32string_view cps) {
  std::string out;
  for (const char32_t cp : cps) append_utf8(out, cp);
  return out;
}

// The pattern by which transformers splits the text of a byte-level file before its bytes, by
// tokenizer.ggml.pre (its gguf_tokenizer_mapping.py); empty for GPT-2's own pre-tokenizer. The
// pre-tokenizers with other patterns are refused by name.
std::string split_pattern_of(const std::string& pre, const std::string& source) {
  static const std::string llama3 =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  static const std::string qwen2 =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  static const std::vector<std::string> llama3_names = {"llama3",       "llama-v3", "llama-bpe", "falcon3",
                                                        "falcon-h1",    "pixtral",  "midm-2.0",  "lfm2",
                                                        "jina-v5-nano", "dbrx",     "smaug-bpe"};
  static const std::vector<std::string> qwen2_names = {"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez"};
  static const std::vector<std::string> other_names = {"tekken",  "qwen35", "gpt-4o",    "llama4",
                                                       "kanana2", "talkie", "minimax-m2"};
  const auto among = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), pre) != names.end();
  };
  if (among(llama3_names)) return llama3;
  if (among(qwen2_names)) return qwen2;
  if (among(other_names))
    throw Error(source + ": pre-tokenizer \"" + pre +
                "\" (tokenizer.ggml.pre) is not read yet (Llama 3's and Qwen 2's are)");
  return "";
}

nlohmann::json byte_level_pre_tokenizer(const std::string& pattern) {
  if (pattern.empty())
    return {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  return {{"type", "Sequence"},
          {"pretokenizers",
           {{{"type", "Split"}, {"pattern", {{"Regex", pattern}}}, {"behavior", "Isolated"}, {"invert", false}},
            {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", false}}}}};
}

bool byte_level_spelled(const std::string& token) {
  const auto& chars = byte_level_chars();
  for (const char32_t cp : code_points(token))
    if (std::find(chars.begin(), chars.end(), cp) == chars.end()) return false;
  return true;
}

// A token written in plain text (some files do) respelled in the byte-level alphabet.
std::string byte_level_spelling(const std::string& token) {
  if (byte_level_spelled(token)) return token;
  std::u32string out;
  for (const unsigned char b : token) out.push_back(byte_level_chars()[b]);
  return encode_utf8(out);
}

// Python's str.isspace, for the one place it decides something here.
bool python_space(char32_t cp) { return is_unicode_space(cp) || (cp >= 0x1C && cp <= 0x1F); }

// Gemma's files store a token of spaces with real spaces: "\u2581" as many times as it has
// characters, when it holds a space and nothing but white space (as transformers respells it).
std::string gemma_spelling(const std::string& token) {
  const std::u32string cps = code_points(token);
  const bool has_space = cps.find(U' ') != std::u32string::npos;
  if (!has_space || !std::all_of(cps.begin(), cps.end(), python_space)) return token;
  return encode_utf8(std::u32string(cps.size(), U'\u2581'));
}

nlohmann::json vocab_object(const std::vector<std::string>& tokens) {
  nlohmann::json vocab = nlohmann::json::object();
  for (size_t id = 0; id < tokens.size(); ++id) vocab[tokens[id]] = id;  // a repeated token: its last id, as in Python
  return vocab;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> merges_from_vocabulary(const std::vector<std::string>& tokens) {
  // A dict built from the list keeps each token's first place in its order and its last id; a
  // token's halves are looked up as views of it (Gemma 3's 262,144 tokens have millions of splits).
  std::unordered_map<std::string_view, size_t, StringViewHash, std::equal_to<>> last;
  last.reserve(tokens.size());
  std::vector<std::string_view> order;
  for (size_t id = 0; id < tokens.size(); ++id)
    if (last.insert_or_assign(tokens[id], id).second) order.emplace_back(tokens[id]);
  struct Merge {
    size_t score_rank, left_length;  // the token's last id; the left half's characters
    std::string_view left, right;    // views of `tokens`
  };
  std::vector<Merge> merges;
  for (const std::string_view token : order) {
    const CharString chars = decode_utf8(token);  // throws on invalid UTF-8, naming the byte
    for (size_t cut = 1; cut < chars.size(); ++cut) {
      const std::string_view left = token.substr(0, chars[cut].begin), right = token.substr(chars[cut].begin);
      if (last.contains(left) && last.contains(right)) merges.push_back({last.at(token), cut, left, right});
    }
  }
  // Best score first (earlier in the file), then the longer left half (the right one is then
  // shorter: the pair of lengths is unique within a token).
  std::stable_sort(merges.begin(), merges.end(), [](const Merge& a, const Merge& b) {
    return a.score_rank != b.score_rank ? a.score_rank < b.score_rank : a.left_length > b.left_length;
  });
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(merges.size());
  for (const Merge& m : merges) out.emplace_back(m.left, m.right);
  return out;
}

namespace {

nlohmann::json added_token(const std::string& content, size_t id, bool special) {
  return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", special}};
}

// Control tokens as special added tokens (in a byte-level vocabulary only those spelled in its
// alphabet: others are llama.cpp's mislabels), user-defined ones as plain added tokens.
nlohmann::json added_tokens(const GgufVocabulary& v, const std::vector<std::string>& spelled, bool byte_level) {
  nlohmann::json added = nlohmann::json::array();
  for (size_t id = 0; id < v.token_types.size() && id < spelled.size(); ++id) {
    const int64_t type = v.token_types[id];
    if (type == kControl && (!byte_level || byte_level_spelled(spelled[id])))
      added.push_back(added_token(spelled[id], id, true));
    else if (type == kUserDefined)
      added.push_back(added_token(spelled[id], id, false));
  }
  return added;
}

// TemplateProcessing with the start token before the text when the file asks for one.
nlohmann::json start_template(const GgufVocabulary& v, const std::vector<std::string>& spelled, bool default_bos,
                              const std::string& source) {
  nlohmann::json single = nlohmann::json::array();
  nlohmann::json specials = nlohmann::json::object();
  if (v.add_bos.value_or(default_bos)) {
    if (!v.bos || *v.bos < 0 || static_cast<size_t>(*v.bos) >= spelled.size())
      throw Error(source + ": the file asks for a start token but names none in its vocabulary");
    const std::string& bos = spelled[static_cast<size_t>(*v.bos)];
    single.push_back({{"SpecialToken", {{"id", bos}, {"type_id", 0}}}});
    specials[bos] = {{"id", bos}, {"ids", {*v.bos}}, {"tokens", {bos}}};
  }
  single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
  return {{"type", "TemplateProcessing"}, {"single", single}, {"pair", nullptr}, {"special_tokens", specials}};
}

// A GGUF file's tokenizer: the tokenizer.json document but its model's vocabulary and merges,
// which stay lists (the tokenizer takes them as they are; gguf_tokenizer_json writes them in).
struct GgufBpe {
  nlohmann::json document;
  std::vector<std::string> spelled;  // the pieces by id, spelled as tokenizer.json spells them
  std::vector<std::pair<std::string, std::string>> merges;
};

std::vector<std::pair<std::string, std::string>> file_merges(const GgufVocabulary& v, const std::string& source) {
  std::vector<std::pair<std::string, std::string>> merges;
  merges.reserve(v.merges.size());
  for (size_t rank = 0; rank < v.merges.size(); ++rank) merges.push_back(merge_pair(v.merges[rank], rank, source));
  return merges;
}

// The BPE model's settings: a byte-level one has no unknown token; SentencePiece's falls back to
// bytes and fuses unknown pieces.
nlohmann::json bpe_model(nlohmann::json unk, bool sentencepiece) {
  return {{"type", "BPE"},
          {"dropout", nullptr},
          {"unk_token", std::move(unk)},
          {"fuse_unk", sentencepiece},
          {"byte_fallback", sentencepiece},
          {"ignore_merges", false}};
}

GgufBpe byte_level_parts(const GgufVocabulary& v, const std::string& source) {
  const nlohmann::json pre_tokenizer = byte_level_pre_tokenizer(split_pattern_of(v.pre, source));
  GgufBpe out;
  out.spelled.reserve(v.tokens.size());
  for (const std::string& t : v.tokens) out.spelled.push_back(byte_level_spelling(t));
  out.merges = file_merges(v, source);
  out.document = {{"normalizer", nullptr},
                  {"pre_tokenizer", pre_tokenizer},
                  {"model", bpe_model(nullptr, false)},
                  {"added_tokens", added_tokens(v, out.spelled, true)},
                  {"post_processor", start_template(v, out.spelled, false, source)}};
  return out;
}

GgufBpe sentencepiece_parts(const GgufVocabulary& v, const std::string& source) {
  const bool gemma = v.architecture == "gemma" || v.architecture == "gemma2" || v.architecture == "gemma3";
  if (!gemma)
    throw Error(source + ": a SentencePiece vocabulary of architecture \"" + v.architecture +
                "\" is not read yet (Gemma's are)");
  GgufBpe out;
  out.spelled.reserve(v.tokens.size());
  for (const std::string& t : v.tokens) out.spelled.push_back(gemma_spelling(t));
  out.merges = v.merges.empty() ? merges_from_vocabulary(out.spelled) : file_merges(v, source);
  const std::string unk = v.unk && *v.unk >= 0 && static_cast<size_t>(*v.unk) < out.spelled.size()
                              ? out.spelled[static_cast<size_t>(*v.unk)]
                              : "<unk>";
  out.document = {
      {"normalizer", {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}},
      {"pre_tokenizer",
       {{"type", "Split"}, {"pattern", {{"String", " "}}}, {"behavior", "MergedWithPrevious"}, {"invert", false}}},
      {"model", bpe_model(unk, true)},
      {"added_tokens", added_tokens(v, out.spelled, false)},
      {"post_processor", start_template(v, out.spelled, true, source)}};
  return out;
}

GgufBpe gguf_parts(const GgufVocabulary& vocabulary, const std::string& source) {
  if (vocabulary.tokens.empty()) throw Error(source + ": the file holds no vocabulary (tokenizer.ggml.tokens)");
  if (vocabulary.model == "gpt2") return byte_level_parts(vocabulary, source);
  if (vocabulary.model == "llama") return sentencepiece_parts(vocabulary, source);
  throw Error(source + ": tokenizer kind \"" + vocabulary.model + "\" (tokenizer.ggml.model) is not supported " +
              "(supported: gpt2, llama)");
}

// The pieces by id as a vocabulary object gives them: a piece listed twice at its last id alone
// (vocab_object), its earlier ids naming none.
std::vector<std::string> by_last_id(std::vector<std::string> spelled) {
  std::vector<size_t> earlier;
  {
    std::unordered_map<std::string_view, size_t, StringViewHash, std::equal_to<>> last;
    last.reserve(spelled.size());
    for (size_t id = 0; id < spelled.size(); ++id)
      if (const auto [at, fresh] = last.try_emplace(spelled[id], id); !fresh) {
        earlier.push_back(at->second);
        at->second = id;
      }
  }
  for (const size_t id : earlier) spelled[id].clear();
  return spelled;
}

}  // namespace

nlohmann::json gguf_tokenizer_json(const GgufVocabulary& vocabulary, const std::string& source) {
  GgufBpe parts = gguf_parts(vocabulary, source);
  nlohmann::json& model = parts.document["model"];
  model["vocab"] = vocab_object(parts.spelled);
  model["merges"] = nlohmann::json::array();
  for (auto& [left, right] : parts.merges) model["merges"].push_back({std::move(left), std::move(right)});
  return std::move(parts.document);
}

std::unique_ptr<Tokenizer> gguf_tokenizer(const GgufVocabulary& vocabulary, const std::string& source) {
  GgufBpe parts = gguf_parts(vocabulary, source);
  BpeLists lists{by_last_id(std::move(parts.spelled)), std::move(parts.merges)};
  return TokenizerPipeline::from_json(parts.document, source, &lists);
}

}  // namespace attnscope
