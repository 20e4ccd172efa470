#pragma once
// The tokenizer a GGUF file describes. A GGUF file holds no tokenizer.json, only llama.cpp's
// tokenizer.ggml.* keys: the kind of model, the vocabulary with each token's type (and score),
// merges, and the special tokens' ids. This builds from them the tokenizer.json that transformers
// builds for the same file (its integrations/gguf/gguf_tokenizer_mapping.py), and so the same ids:
//   gpt2   byte-level BPE: the file's merges, GPT-2's pre-tokenizer, or for the names of
//          tokenizer.ggml.pre that need one, Llama 3's or Qwen 2's Split pattern (others refused);
//   llama  SentencePiece BPE with byte fallback; Gemma's files (general.architecture gemma,
//          gemma2, gemma3) with spaces as U+2581 and merges rebuilt from the vocabulary's order.
// Control tokens (type 3) become special added tokens, user-defined ones (type 4) plain added
// tokens; add_bos_token puts the start token before the pieces, and no end token follows.
// The model layer reads the keys from the file (model/gguf_file.h).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/tokenizer.h"

namespace attnscope {

struct GgufVocabulary {
  std::string architecture;  // general.architecture
  std::string model;         // tokenizer.ggml.model
  std::string pre;           // tokenizer.ggml.pre
  std::vector<std::string> tokens, merges;
  std::vector<double> scores;
  std::vector<int64_t> token_types;
  std::optional<int64_t> bos, eos, unk, pad;
  std::optional<bool> add_bos;  // absent: true for llama-style files, false for gpt2
};

// The tokenizer.json document; throws attnscope::Error naming what it cannot build.
nlohmann::json gguf_tokenizer_json(const GgufVocabulary& vocabulary, const std::string& source);
std::unique_ptr<Tokenizer> gguf_tokenizer(const GgufVocabulary& vocabulary, const std::string& source);

// transformers' generate_merges: every split of a token into two tokens of the vocabulary, by
// the token's score, best first, and of one token's splits the longer left half (in characters)
// first, as transformers 5 sorts them (score, then both halves' lengths, all reversed). Scores
// here are the tokens' places in the file, earlier first, as transformers uses for Gemma.
std::vector<std::pair<std::string, std::string>> merges_from_vocabulary(const std::vector<std::string>& tokens);

}  // namespace attnscope
