#pragma once
// A long text's forward reports how far it has come from the blocks of maps it makes (each layer's
// attention a block of query rows at a time, model/transformer.h): the work is even across
// layers and rows, so rows done over rows to do is the fraction.
#include <cstdint>

#include "base/progress.h"
#include "model/transformer.h"

namespace attnscope {

// `sink` (may be empty) still gets every block; `progress` (may be empty) gets ("model", fraction)
// after each, over `layers` layers.
AttentionBlockSink with_forward_progress(AttentionBlockSink sink, ProgressReport progress, int64_t layers);

}  // namespace attnscope
