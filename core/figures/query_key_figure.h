#pragma once
// The query/key view of one head (bertviz's neuron view, Vig 2019): the query q_i of a token, the
// keys k_j of every token, their elementwise products q_i * k_j (each row sums to q_i . k_j, which
// the model's scale, and in some families a cap or a bias by distance, turn into the score of j),
// and the attention row A_i they make; the key options.key outlined.
#include "figures/text_figures.h"

namespace attnscope {

// Needs the lenses' captures (TextCaptures::queries, keys); throws attnscope::Error without them
// or for a query outside the text.
Figure query_key_figure(const AnalyzedTextView& text, const FigureOptions& options);

}  // namespace attnscope
