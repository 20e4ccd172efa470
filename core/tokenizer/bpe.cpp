#include "tokenizer/bpe.h"

#include <cstdio>
#include <limits>

#include "base/error.h"

namespace attnscope {

std::pair<std::string, std::string> merge_pair(const std::string& text, size_t rank, const std::string& source) {
  const size_t space = text.find(' ');
  if (space == std::string::npos || space == 0 || space + 1 == text.size() ||
      text.find(' ', space + 1) != std::string::npos)
    throw Error(source + ": merge " + std::to_string(rank) + " (\"" + text +
                "\") is not two entries separated by a space");
  return {text.substr(0, space), text.substr(space + 1)};
}

Bpe::Bpe(std::vector<std::string> tokens, const std::vector<std::pair<std::string, std::string>>& merges,
         const std::string& source, BpeOptions options)
    : tokens_(std::move(tokens)), options_(options) {
  ids_.reserve(tokens_.size());
  for (size_t i = 0; i < tokens_.size(); ++i) ids_.emplace(tokens_[i], static_cast<int32_t>(i));
  const auto id_of = [&](const std::string& t, size_t rank) {
    const auto it = ids_.find(t);
    if (it == ids_.end())
      throw Error(source + ": merge " + std::to_string(rank) + " names \"" + t + "\", which is not in the vocabulary");
    return it->second;
  };
  merges_.reserve(merges.size());
  std::string pair;  // one buffer for every merge's joined pieces (Gemma 3 has some 500,000 merges)
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [a, b] = merges[rank];
    const int32_t joined = id_of(pair.assign(a).append(b), rank);
    merges_.emplace(key(id_of(a, rank), id_of(b, rank)),
                    Merge{static_cast<int32_t>(rank), joined});  // the first rank of a pair wins
  }
}

void Bpe::tokenize(const CharString& word, std::vector<Token>& out) const {
  if (word.empty()) return;
  struct Symbol {
    int32_t id;
    uint32_t begin, end;
  };
  std::vector<Symbol> symbols;
  std::string text;
  bool last_unknown = false;
  for (const SourceChar& c : word) {
    std::string one;
    append_utf8(one, c.cp);
    text += one;
    if (const auto it = ids_.find(one); it != ids_.end()) {
      symbols.push_back({it->second, c.begin, c.end});
      last_unknown = false;
      continue;
    }
    if (options_.byte_fallback) {
      std::vector<Symbol> bytes;
      for (unsigned char b : one) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        if (const auto it = ids_.find(name); it != ids_.end()) bytes.push_back({it->second, c.begin, c.end});
      }
      if (bytes.size() == one.size()) {
        symbols.insert(symbols.end(), bytes.begin(), bytes.end());
        last_unknown = false;
        continue;
      }
    }
    if (!options_.unk_id) continue;  // no unknown piece: the character is dropped
    if (options_.fuse_unk && last_unknown)
      symbols.back().end = c.end;
    else
      symbols.push_back({*options_.unk_id, c.begin, c.end});
    last_unknown = true;
  }
  if (options_.ignore_merges)
    if (const auto it = ids_.find(text); it != ids_.end())
      symbols = {{it->second, word.front().begin, word.back().end}};
  // The lowest-ranked adjacent pair is merged first, the leftmost among equals: the reference's order.
  while (symbols.size() > 1) {
    int32_t best_rank = std::numeric_limits<int32_t>::max(), best_id = 0;
    size_t best = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto it = merges_.find(key(symbols[i].id, symbols[i + 1].id));
      if (it != merges_.end() && it->second.rank < best_rank)
        best_rank = it->second.rank, best_id = it->second.id, best = i;
    }
    if (best_rank == std::numeric_limits<int32_t>::max()) break;
    symbols[best] = {best_id, symbols[best].begin, symbols[best + 1].end};
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  for (const Symbol& s : symbols) out.push_back({s.id, tokens_[static_cast<size_t>(s.id)], s.begin, s.end, false});
}

}  // namespace attnscope
