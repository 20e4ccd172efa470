#include "tokenizer/vocab.h"

#include <fstream>
#include <sstream>

#include "base/error.h"

namespace attnscope {

Vocab Vocab::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string() + ": cannot open the vocabulary file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  // Lines end with LF, CRLF or a lone CR, as the reference reads the file in text mode.
  std::vector<std::string> tokens;
  std::string line;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      tokens.push_back(std::move(line));
      line.clear();
    } else {
      line.push_back(c);
    }
  }
  if (!line.empty()) tokens.push_back(std::move(line));
  if (tokens.empty()) throw Error(file.string() + ": the vocabulary file is empty");
  Vocab vocab = from_tokens(std::move(tokens));
  vocab.source_ = file.string();
  return vocab;
}

Vocab Vocab::from_tokens(std::vector<std::string> tokens) {
  Vocab vocab;
  vocab.tokens_ = std::move(tokens);
  vocab.ids_.reserve(vocab.tokens_.size());
  for (size_t i = 0; i < vocab.tokens_.size(); ++i)
    vocab.ids_[vocab.tokens_[i]] = static_cast<int32_t>(i);  // a repeated token keeps its last line
  return vocab;
}

std::optional<int32_t> Vocab::find(std::string_view token) const {
  const auto it = ids_.find(token);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

int32_t Vocab::required_id(std::string_view token) const {
  if (auto id = find(token)) return *id;
  throw Error(source_ + ": the vocabulary has no " + std::string(token) + " token, which BERT needs");
}

const std::string& Vocab::token(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= tokens_.size())
    throw Error("token id " + std::to_string(id) + " is outside the vocabulary (" + std::to_string(tokens_.size()) +
                " tokens)");
  return tokens_[static_cast<size_t>(id)];
}

}  // namespace attnscope
