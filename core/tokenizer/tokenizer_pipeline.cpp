// tokenizer.json read into a TokenizerPipeline, and the tokenizer run. Sections, in order:
//   1. reading the file's stages: pre-tokenizer, Unigram or BPE model, added tokens, post-processor template
//   2. helpers of the run: offsets inside a character, trimming, word characters
//   3. TokenizerPipeline: construction, vocabulary, Metaspace words, tokenize, wrap with the template
#include "tokenizer/tokenizer_pipeline.h"

#include <utf8proc.h>

#include <algorithm>
#include <span>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_file.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/char_classes.h"
#include "tokenizer/pre_tokenizer.h"

namespace attnscope {
namespace {

std::string type_of(const nlohmann::json& j, const std::string& what, const std::string& source) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    throw Error(source + ": " + what + " has no \"type\"");
  return j["type"].get<std::string>();
}

bool flag(const nlohmann::json& j, const char* key, bool fallback) {
  return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

// The pre-tokenizer's settings; a Sequence may hold one alone, or a Split then a ByteLevel that
// does not split again (Llama 3, Qwen: the pattern cuts words, then each is spelled in bytes).
void read_pre_tokenizer(const nlohmann::json& j, TokenizerPipeline::Settings& s, const std::string& source) {
  if (j.is_null()) return;
  const std::string type = type_of(j, "the pre-tokenizer", source);
  if (type == "Sequence" && json_member(j, "pretokenizers").is_array() && j["pretokenizers"].size() == 1)
    return read_pre_tokenizer(j["pretokenizers"][0], s, source);
  if (type == "Sequence" && j["pretokenizers"].is_array() && j["pretokenizers"].size() == 2) {
    const nlohmann::json& split = j["pretokenizers"][0];
    const nlohmann::json& bytes = j["pretokenizers"][1];
    if (type_of(split, "a pre-tokenizer", source) != "Split" ||
        type_of(bytes, "a pre-tokenizer", source) != "ByteLevel" || flag(bytes, "use_regex", true))
      throw Error(source +
                  ": a Sequence of pre-tokenizers other than Split then ByteLevel (use_regex false) is not supported");
    read_pre_tokenizer(bytes, s, source);
    s.split_pattern = SplitPreTokenizer::from_json(split, source);
    s.split_before_bytes = true;
    return;
  }
  if (type == "ByteLevel") {
    s.pre_tokenizer = TokenizerPipeline::PreTokenizer::ByteLevel;
    s.add_prefix_space = flag(j, "add_prefix_space", true);
    s.use_regex = flag(j, "use_regex", true);
  } else if (type == "Metaspace") {
    s.pre_tokenizer = TokenizerPipeline::PreTokenizer::Metaspace;
    const CharString replacement =
        decode_utf8(json_optional<std::string>(j, "replacement", "\u2581", source + ": Metaspace"));
    if (replacement.size() != 1) throw Error(source + ": Metaspace's replacement must be one character");
    s.replacement = replacement.front().cp;
    const std::string scheme = json_optional<std::string>(
        j, "prepend_scheme", flag(j, "add_prefix_space", true) ? "always" : "never", source + ": Metaspace");
    if (scheme == "always")
      s.prepend = TokenizerPipeline::Prepend::Always;
    else if (scheme == "first")
      s.prepend = TokenizerPipeline::Prepend::First;
    else if (scheme == "never")
      s.prepend = TokenizerPipeline::Prepend::Never;
    else
      throw Error(source + ": Metaspace's prepend_scheme \"" + scheme + "\" is not one of always, first, never");
    s.split = flag(j, "split", true);
  } else if (type == "Split") {
    s.pre_tokenizer = TokenizerPipeline::PreTokenizer::Split;
    s.split_pattern = SplitPreTokenizer::from_json(j, source);
  } else {
    throw Error(source + ": pre-tokenizer \"" + type + "\" is not supported (supported: ByteLevel, Metaspace, Split)");
  }
}

Unigram read_unigram(const nlohmann::json& model, const std::string& source) {
  if (flag(model, "byte_fallback", false)) throw Error(source + ": Unigram with byte_fallback is not supported");
  if (!model.contains("vocab") || !model["vocab"].is_array())
    throw Error(source + ": the Unigram model has no vocab list");
  std::vector<std::pair<std::string, double>> pieces;
  for (const auto& p : model["vocab"]) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_number())
      throw Error(source + ": Unigram vocabulary entry " + std::to_string(pieces.size()) + " is not [piece, score]");
    pieces.push_back({p[0].get<std::string>(), p[1].get<double>()});
  }
  if (!model.contains("unk_id") || !model["unk_id"].is_number_integer())
    throw Error(source + ": the Unigram model has no unk_id");
  return Unigram(std::move(pieces), model["unk_id"].get<int64_t>(), source);
}

std::pair<std::string, std::string> merge_of(const nlohmann::json& m, size_t rank, const std::string& source) {
  if (m.is_string()) return merge_pair(m.get<std::string>(), rank, source);
  if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
    return {m[0].get<std::string>(), m[1].get<std::string>()};
  throw Error(source + ": merge " + std::to_string(rank) + " is neither \"a b\" nor [\"a\", \"b\"]");
}

// tokenizer.json's "vocab" and "merges" as lists.
BpeLists bpe_lists(const nlohmann::json& model, const std::string& source) {
  if (!model.contains("vocab") || !model["vocab"].is_object())
    throw Error(source + ": the BPE model has no vocab object");
  if (!model.contains("merges") || !model["merges"].is_array())
    throw Error(source + ": the BPE model has no merges list");
  BpeLists lists;
  std::vector<std::string>& tokens = lists.tokens;
  for (const auto& [text, id] : model["vocab"].items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > 10'000'000)
      throw Error(source + ": vocabulary entry \"" + text + "\" has id " + id.dump() +
                  ", expected a non-negative integer");
    const auto i = static_cast<size_t>(id.get<int64_t>());
    if (i >= tokens.size()) tokens.resize(i + 1);
    if (!tokens[i].empty()) throw Error(source + ": vocabulary id " + std::to_string(i) + " is given twice");
    tokens[i] = text;
  }
  for (size_t r = 0; r < model["merges"].size(); ++r) lists.merges.push_back(merge_of(model["merges"][r], r, source));
  return lists;
}

// The BPE of a tokenizer.json's model, its vocabulary and merges from `given` where given.
Bpe read_bpe(const nlohmann::json& model, const std::string& source, BpeLists* given) {
  for (const char* unsupported : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (model.contains(unsupported) && !model[unsupported].is_null() && model[unsupported] != "")
      throw Error(source + ": BPE with a " + unsupported + " is not supported");
  BpeLists lists = given ? std::move(*given) : bpe_lists(model, source);
  BpeOptions options{std::nullopt, flag(model, "fuse_unk", false), flag(model, "byte_fallback", false),
                     flag(model, "ignore_merges", false)};
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    const auto unk = std::find(lists.tokens.begin(), lists.tokens.end(), model["unk_token"].get<std::string>());
    if (unk == lists.tokens.end())
      throw Error(source + ": the BPE model's unk_token " + model["unk_token"].dump() + " is not in its vocabulary");
    options.unk_id = static_cast<int32_t>(unk - lists.tokens.begin());
  }
  return Bpe(std::move(lists.tokens), lists.merges, source, options);
}

std::vector<AddedToken> read_added(const nlohmann::json& j, const std::string& source) {
  std::vector<AddedToken> out;
  if (j.is_null()) return out;
  if (!j.is_array()) throw Error(source + ": \"added_tokens\" must be a list");
  for (const auto& t : j) {
    if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() || !t.contains("content") ||
        !t["content"].is_string() || t["content"].get<std::string>().empty())
      throw Error(source + ": an added token needs an integer \"id\" and a non-empty \"content\"");
    out.push_back({t["content"].get<std::string>(), t["id"].get<int32_t>(), flag(t, "special", false),
                   flag(t, "lstrip", false), flag(t, "rstrip", false), flag(t, "single_word", false)});
  }
  return out;
}

Token special_token(const nlohmann::json& pair_or_name, const nlohmann::json& specials, const std::string& source) {
  if (pair_or_name.is_array() && pair_or_name.size() == 2 && pair_or_name[0].is_string() &&
      pair_or_name[1].is_number_integer())
    return {pair_or_name[1].get<int32_t>(), pair_or_name[0].get<std::string>(), 0, 0, true};
  if (pair_or_name.is_string()) {
    const nlohmann::json& special = json_member(specials, pair_or_name.get<std::string>());
    const nlohmann::json &ids = json_member(special, "ids"), &tokens = json_member(special, "tokens");
    if (ids.is_array() && ids.size() == 1 && ids[0].is_number_integer() && tokens.is_array() && tokens.size() == 1 &&
        tokens[0].is_string())
      return {ids[0].get<int32_t>(), tokens[0].get<std::string>(), 0, 0, true};
  }
  throw Error(source + ": the post-processor's special token " + pair_or_name.dump() + " is not defined");
}

void read_template(const nlohmann::json& j, TokenizerPipeline::Settings& s, const std::string& source) {
  if (!j.contains("single") || !j["single"].is_array())
    throw Error(source + ": TemplateProcessing without a \"single\" template");
  bool seen_sequence = false;
  for (const auto& item : j["single"]) {
    if (item.contains("Sequence")) {
      if (seen_sequence) throw Error(source + ": a single template with the sequence twice is not supported");
      seen_sequence = true;
    } else if (item.contains("SpecialToken")) {
      (seen_sequence ? s.after : s.before)
          .push_back(special_token(json_member(item["SpecialToken"], "id"), json_member(j, "special_tokens"), source));
    } else {
      throw Error(source + ": template item " + item.dump() + " is not supported");
    }
  }
  if (!seen_sequence) throw Error(source + ": the single template has no sequence");
}

void read_post_processor(const nlohmann::json& j, TokenizerPipeline::Settings& s, const std::string& source) {
  if (j.is_null()) return;
  const std::string type = type_of(j, "the post-processor", source);
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    s.before.push_back(special_token(json_member(j, "cls"), nullptr, source));
    s.after.push_back(special_token(json_member(j, "sep"), nullptr, source));
    if (type == "RobertaProcessing") s.trim_offsets = flag(j, "trim_offsets", true);
  } else if (type == "TemplateProcessing") {
    read_template(j, s, source);
  } else if (type == "ByteLevel") {
    s.trim_offsets = flag(j, "trim_offsets", true);
  } else if (type == "Sequence" && j.contains("processors") && j["processors"].is_array()) {
    for (const auto& p : j["processors"]) read_post_processor(p, s, source);
  } else {
    throw Error(source + ": post-processor \"" + type +
                "\" is not supported (supported: RobertaProcessing, BertProcessing, TemplateProcessing, ByteLevel)");
  }
}

// Where the reference's offsets land when it hands them out by character (transformers' offset
// mapping): a range that starts inside a character starts after it, one that ends inside a
// character ends before it.
bool inside_character(std::string_view text, uint32_t byte) {
  return byte > 0 && byte < text.size() && (static_cast<unsigned char>(text[byte]) & 0xC0) == 0x80;
}

// The reference's trim_offsets: a piece's leading and trailing spaces leave its byte range,
// except the one space the pre-tokenizer itself put before the first word. It counts spaces in
// bytes, so a range may then start or end inside a character; it is moved to the character
// boundaries the reference's offset mapping reports.
void trim(std::span<Token> pieces, bool added_prefix_space, std::string_view text) {
  const auto& space = byte_level_chars()[' '];
  for (Token& t : pieces) {
    if (t.special) continue;
    const CharString chars = decode_utf8(t.text);
    size_t lead = 0, trail = 0;
    while (lead < chars.size() && (chars[lead].cp == space || is_unicode_space(chars[lead].cp))) ++lead;
    while (trail < chars.size() &&
           (chars[chars.size() - 1 - trail].cp == space || is_unicode_space(chars[chars.size() - 1 - trail].cp)))
      ++trail;
    if (lead > 0 && !(added_prefix_space && lead == 1 && t.begin == 0))
      t.begin = std::min(t.begin + static_cast<uint32_t>(lead), t.end);
    if (trail > 0 && t.end >= trail) t.end = std::max(t.end - static_cast<uint32_t>(trail), t.begin);
    while (inside_character(text, t.begin)) ++t.begin;
    while (inside_character(text, t.end)) --t.end;
    t.end = std::max(t.begin, t.end);
  }
}

bool is_word_char(char32_t cp) {
  const auto c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return cp == U'_' || (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
         (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

}  // namespace

TokenizerPipeline::TokenizerPipeline(Model model, Settings settings)
    : model_(std::move(model)), settings_(std::move(settings)) {
  for (const AddedToken& a : settings_.added)
    if (!a.content.empty()) starts_added_[static_cast<unsigned char>(a.content.front())] = true;
}

std::unique_ptr<Tokenizer> TokenizerPipeline::from_json(const nlohmann::json& json, const std::string& source,
                                                        BpeLists* bpe) {
  if (!json.is_object() || !json.contains("model")) throw Error(source + ": not a tokenizer.json (no \"model\")");
  const std::string model = type_of(json["model"], "the model", source);
  if (model != "BPE" && model != "Unigram")
    throw Error(source + ": tokenizer model \"" + model + "\" is not supported (supported: WordPiece, BPE, Unigram)");
  Settings s;
  s.normalizer = TextNormalizer::from_json(json.value("normalizer", nlohmann::json()), source);
  read_pre_tokenizer(json.value("pre_tokenizer", nlohmann::json()), s, source);
  if (model == "BPE" && s.pre_tokenizer == PreTokenizer::None)
    throw Error(source + ": a BPE model is read with the ByteLevel, Metaspace or Split pre-tokenizer");
  if (model == "Unigram" && s.pre_tokenizer != PreTokenizer::Metaspace)
    throw Error(source + ": a Unigram model is read with the Metaspace pre-tokenizer only");
  s.added = read_added(json.value("added_tokens", nlohmann::json()), source);
  read_post_processor(json.value("post_processor", nlohmann::json()), s, source);
  if (model == "BPE") return std::make_unique<TokenizerPipeline>(read_bpe(json["model"], source, bpe), std::move(s));
  if (bpe) throw Error(source + ": a BPE's vocabulary and merges were given for a " + model + " model");
  return std::make_unique<TokenizerPipeline>(read_unigram(json["model"], source), std::move(s));
}

std::unique_ptr<TokenizerPipeline> TokenizerPipeline::with_template_of(std::unique_ptr<TokenizerPipeline> base,
                                                                       const nlohmann::json& json,
                                                                       const std::string& source) {
  Settings& s = base->settings_;
  s.before.clear();
  s.after.clear();
  s.added = read_added(json.value("added_tokens", nlohmann::json()), source);
  read_post_processor(json.value("post_processor", nlohmann::json()), s, source);
  return std::make_unique<TokenizerPipeline>(std::move(base->model_), std::move(s));
}

size_t TokenizerPipeline::vocab_size() const {
  size_t n = std::visit([](const auto& m) { return m.size(); }, model_);
  for (const AddedToken& a : settings_.added) n = std::max(n, static_cast<size_t>(a.id) + 1);
  return n;
}

std::string TokenizerPipeline::piece(int64_t id) const {
  for (const AddedToken& a : settings_.added)
    if (a.id == id) return a.content;
  return std::visit(
      [&](const auto& m) {
        return id >= 0 && static_cast<size_t>(id) < m.size() ? m.piece(static_cast<int32_t>(id)) : "";
      },
      model_);
}

std::vector<int64_t> TokenizerPipeline::special_ids() const {
  std::vector<int64_t> ids;
  for (const AddedToken& a : settings_.added)
    if (a.special) ids.push_back(a.id);
  for (const auto* side : {&settings_.before, &settings_.after})
    for (const Token& t : *side) ids.push_back(t.id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::unique_ptr<Tokenizer> TokenizerPipeline::load(const std::filesystem::path& file) {
  return from_json(read_json_file(file), file.string());
}

// Metaspace: spaces become the replacement, one is put before the segment (as the scheme says),
// and each replacement starts a new word.
std::vector<CharString> TokenizerPipeline::metaspace_words(CharString chars) const {
  const char32_t mark = settings_.replacement;
  for (SourceChar& c : chars)
    if (c.cp == U' ') c.cp = mark;
  const bool prepend =
      settings_.prepend == Prepend::Always || (settings_.prepend == Prepend::First && chars.front().begin == 0);
  if (prepend && chars.front().cp != mark)
    chars.insert(chars.begin(), SourceChar{mark, chars.front().begin, chars.front().end});
  std::vector<CharString> words;
  for (const SourceChar& c : chars) {
    if (words.empty() || (settings_.split && c.cp == mark)) words.emplace_back();
    words.back().push_back(c);
  }
  return words;
}

// BERT's words, a segment at a time: a long text is normalised and split a segment of about
// kSegmentChars at a time, each ending just after a whitespace character: the same pieces (a word
// never spans whitespace, and the normalisation works character by character, reordering accents
// only within a run of combining marks, which whitespace ends), without three full-length copies
// of the text's characters at once (`attnscope-cli tokenize` of 10 MB peaked at 1.06 GB in one
// piece, 0.79 GB in segments).
void TokenizerPipeline::tokenize_bert_words(std::span<const SourceChar> chars, std::vector<Token>& out) const {
  const WordPiece& wordpiece = std::get<WordPiece>(model_);
  for (size_t begin = 0; begin < chars.size();) {
    size_t end = std::min(chars.size(), begin + kSegmentChars);
    while (end < chars.size() && !is_bert_whitespace(chars[end - 1].cp)) ++end;
    const CharString normalized = settings_.normalizer.apply(CharString(
        chars.begin() + static_cast<std::ptrdiff_t>(begin), chars.begin() + static_cast<std::ptrdiff_t>(end)));
    for (const CharSpan& word : split_words(normalized))
      wordpiece.tokenize(normalized.data() + word.first, normalized.data() + word.last, out);
    begin = end;
  }
}

// The model on each word's characters as they are (no byte-level spelling).
void TokenizerPipeline::tokenize_words(const std::vector<CharString>& words, std::vector<Token>& out) const {
  for (const CharString& word : words)
    std::visit(
        [&](const auto& model) {
          if constexpr (std::is_same_v<std::decay_t<decltype(model)>, WordPiece>)
            model.tokenize(word.data(), word.data() + word.size(), out);
          else
            model.tokenize(word, out);
        },
        model_);
}

void TokenizerPipeline::tokenize_segment(std::string_view text, std::span<const SourceChar> segment,
                                         std::vector<Token>& out) const {
  if (settings_.pre_tokenizer == PreTokenizer::Bert) return tokenize_bert_words(segment, out);
  CharString chars = settings_.normalizer.apply(CharString(segment.begin(), segment.end()));
  if (chars.empty()) return;
  if (settings_.pre_tokenizer == PreTokenizer::Metaspace)  // SentencePiece: Unigram, or BPE on characters
    return tokenize_words(metaspace_words(std::move(chars)), out);
  if (settings_.pre_tokenizer == PreTokenizer::Split) return tokenize_words(settings_.split_pattern.words(chars), out);
  const Bpe& bpe = std::get<Bpe>(model_);
  // The added space takes the range of the character it goes before, as in the reference.
  if (settings_.add_prefix_space && chars.front().cp != U' ')
    chars.insert(chars.begin(), SourceChar{U' ', chars.front().begin, chars.front().end});
  const size_t first_piece = out.size();
  if (settings_.split_before_bytes) {
    for (const CharString& w : settings_.split_pattern.words(chars))
      bpe.tokenize(to_byte_level(w.data(), w.data() + w.size()), out);
  } else {
    const std::vector<CharRange> words =
        settings_.use_regex ? split_gpt2_words(chars) : std::vector<CharRange>{{0, chars.size()}};
    for (const CharRange& w : words) bpe.tokenize(to_byte_level(chars.data() + w.first, chars.data() + w.last), out);
  }
  if (settings_.trim_offsets) trim(std::span<Token>(out).subspan(first_piece), settings_.add_prefix_space, text);
}

std::vector<Token> TokenizerPipeline::tokenize(std::string_view text) const {
  const CharString chars = decode_utf8(text);
  std::vector<Token> out;
  size_t segment = 0;  // first char not yet tokenised
  for (size_t i = 0; i < chars.size(); ++i) {
    // Added tokens, leftmost and longest, in the raw text.
    if (!starts_added_[static_cast<unsigned char>(text[chars[i].begin])]) continue;
    const AddedToken* match = nullptr;
    const std::string_view rest = text.substr(chars[i].begin);
    for (const AddedToken& a : settings_.added)
      if (rest.starts_with(a.content) && (!match || a.content.size() > match->content.size())) match = &a;
    if (!match) continue;
    size_t last = i;  // the char after the match
    while (last < chars.size() && chars[last].begin < chars[i].begin + match->content.size()) ++last;
    if (match->single_word &&
        ((i > 0 && is_word_char(chars[i - 1].cp)) || (last < chars.size() && is_word_char(chars[last].cp))))
      continue;
    // The spaces lstrip and rstrip take belong to the token's range, until trim_offsets takes
    // them out again (as it does for any piece that starts or ends with spaces).
    size_t first = i;
    const size_t content_end = last;
    if (match->lstrip)
      while (first > segment && is_unicode_space(chars[first - 1].cp)) --first;
    if (match->rstrip)
      while (last < chars.size() && is_unicode_space(chars[last].cp)) ++last;
    tokenize_segment(text, std::span<const SourceChar>(chars).subspan(segment, first - segment), out);
    Token token{match->id, match->content, chars[first].begin, chars[last - 1].end, match->special};
    if (settings_.trim_offsets) {
      if (first < i && !(settings_.add_prefix_space && i - first == 1 && token.begin == 0))
        token.begin = chars[i].begin;
      if (last > content_end) token.end = chars[content_end - 1].end;
    }
    out.push_back(token);
    segment = last;
    i = last - 1;
  }
  tokenize_segment(text, std::span<const SourceChar>(chars).subspan(segment), out);
  return out;
}

Encoding TokenizerPipeline::wrap(std::vector<Token> pieces, size_t max_length) const {
  const size_t added = settings_.before.size() + settings_.after.size();
  if (max_length < std::max<size_t>(added, 1))
    throw Error("the maximum length must be at least " + std::to_string(std::max<size_t>(added, 1)) + ", got " +
                std::to_string(max_length));
  Encoding e;
  e.full_length = pieces.size() + added;
  e.truncated = e.full_length > max_length;
  if (e.truncated) pieces.resize(max_length - added);
  const uint32_t end = pieces.empty() ? 0 : pieces.back().end;
  e.tokens = settings_.before;
  for (Token& t : pieces) e.tokens.push_back(std::move(t));
  for (Token t : settings_.after) {
    t.begin = t.end = end;  // as BERT's [SEP]: at the end of the text shown
    e.tokens.push_back(std::move(t));
  }
  return e;
}

}  // namespace attnscope
