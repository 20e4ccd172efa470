#pragma once
// A byte-pair-encoding model: a word starts as its characters, and the adjacent pair of lowest
// rank in the merges list is joined, again and again, until no listed pair is left. A character
// outside the vocabulary becomes its UTF-8 bytes as "<0xAB>" pieces (byte_fallback), or the
// unknown piece (neighbouring ones fused into one with fuse_unk), or is dropped when the model has
// no unknown piece: the reference's order of choices.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizer/encoding.h"
#include "tokenizer/utf8.h"

namespace attnscope {

struct BpeOptions {
  std::optional<int32_t> unk_id;
  bool fuse_unk = false, byte_fallback = false, ignore_merges = false;
};

// A BPE's vocabulary (its pieces by id; "" where an id names none) and merges (in rank order),
// given as lists instead of tokenizer.json's "vocab" and "merges" (a GGUF file's, built in memory:
// TokenizerPipeline::from_json).
struct BpeLists {
  std::vector<std::string> tokens;
  std::vector<std::pair<std::string, std::string>> merges;
};

// A merge written as "a b" (tokenizer.json, a GGUF file); throws naming `source` and the merge's
// rank unless it is two entries separated by one space.
std::pair<std::string, std::string> merge_pair(const std::string& text, size_t rank, const std::string& source);

class Bpe {
 public:
  // merges: pairs of vocabulary entries, in rank order. Throws naming `source` when a merge names
  // an entry the vocabulary lacks.
  Bpe(std::vector<std::string> tokens, const std::vector<std::pair<std::string, std::string>>& merges,
      const std::string& source, BpeOptions options = {});

  // The pieces of one word, with the source ranges of their characters.
  void tokenize(const CharString& word, std::vector<Token>& out) const;

  size_t size() const { return tokens_.size(); }
  const std::string& token(int32_t id) const { return tokens_[static_cast<size_t>(id)]; }
  const std::string& piece(int32_t id) const { return token(id); }
  const std::unordered_map<std::string, int32_t>& ids() const { return ids_; }

 private:
  struct Merge {
    int32_t rank, id;
  };
  static uint64_t key(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
  std::unordered_map<uint64_t, Merge> merges_;
  BpeOptions options_;
};

}  // namespace attnscope
