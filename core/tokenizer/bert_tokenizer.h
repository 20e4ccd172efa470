#pragma once
// BERT's tokenizer as a configuration of the tokenizer pipeline (tokenizer_pipeline.h), behaving as
// the reference (transformers' BertTokenizer, which runs the `tokenizers` BertNormalizer,
// BertPreTokenizer and WordPiece): [PAD], [UNK], [CLS], [SEP] and [MASK] typed in the text are
// added tokens, kept whole; the rest is normalised, split into words and into word pieces; the
// template wraps the pieces in [CLS] and [SEP].
#include <filesystem>
#include <memory>

#include "tokenizer/normalizer.h"
#include "tokenizer/tokenizer_pipeline.h"
#include "tokenizer/vocab.h"

namespace attnscope {

// Throws attnscope::Error naming the vocabulary when it lacks [CLS], [SEP], [PAD] or [UNK].
std::unique_ptr<TokenizerPipeline> bert_tokenizer(Vocab vocab, const NormalizerOptions& options);

// vocab.txt plus the options of tokenizer_config.json (do_lower_case, strip_accents,
// tokenize_chinese_chars), with the reference's defaults when that file is absent.
std::unique_ptr<TokenizerPipeline> load_bert_tokenizer(const std::filesystem::path& dir);

}  // namespace attnscope
