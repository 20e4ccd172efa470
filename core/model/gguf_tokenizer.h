#pragma once
// The tokenizer of a GGUF file: its tokenizer.ggml.* keys read into a GgufVocabulary, which the
// tokenizer layer turns into the tokenizer transformers builds for the file
// (tokenizer/gguf_vocabulary.h).
#include <memory>

#include "model/gguf_file.h"
#include "tokenizer/gguf_vocabulary.h"

namespace attnscope {

GgufVocabulary read_gguf_vocabulary(const GgufFile& file);
std::unique_ptr<Tokenizer> load_gguf_tokenizer(const GgufFile& file);

}  // namespace attnscope
