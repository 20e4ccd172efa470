#pragma once
// Sentence numbers of the tokens (METHOD.md "Sentences"), numbered from 0.
#include <vector>

#include "analysis/separators.h"
#include "tokenizer/encoding.h"

namespace attnscope {

// A sentence ends after a run of "." "!" "?" tokens (the run belongs to it); [CLS] is in the
// first sentence and the final [SEP] in the last, so a closing "." starts no new sentence.
std::vector<int> punctuation_sentences(const std::vector<Token>& tokens);
// Sentence k is the k-th segment.
std::vector<int> segment_sentences(const std::vector<Segment>& segments, int n);

}  // namespace attnscope
