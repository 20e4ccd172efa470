#pragma once
// The same 512 tokens of the default corpus analysed by the real MiniLM both ways: as a long text
// (the forward keeps queries and keys and the lenses' value vectors, the maps are made again) and
// with every map kept, made once per test program. What a long text shows must equal, to the
// bit, what the text with its maps shows.
#include <memory>

#include "analysis/text_analysis.h"
#include "figures/text_matrices.h"
#include "model/captures.h"
#include "model/transformer.h"
#include "tokenizer/encoding.h"

namespace attnscope::test {

struct AnalysedText {
  TextCaptures captures;
  TextAnalysis analysis;
};

struct BothPaths {
  Encoding encoding;
  AnalysedText long_text, maps;
};

const BothPaths& both_paths();
// The long text, its maps made again by MiniLM.
AnalyzedTextView long_view();
// The text with every map kept.
AnalyzedTextView maps_view();

// A decoder's text both ways: a tiny random Gemma 3 (4 layers, the first and third sliding with a
// window of 5) copied with 300 positions, on 230 token ids (past its window and past blocks of 64
// rows), each token its own piece, with the lenses' captures, analysed with the default settings.
struct DecoderBothPaths {
  std::shared_ptr<const Transformer> model;
  Encoding encoding;
  AnalysedText long_text, maps;
};
const DecoderBothPaths& decoder_both_paths();
AnalyzedTextView decoder_long_view();  // its maps made again by the model
AnalyzedTextView decoder_maps_view();

}  // namespace attnscope::test
