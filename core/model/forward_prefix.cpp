// What a run kept that a forward of a text beginning with the same tokens continues from.
#include "model/transformer.h"

namespace attnscope {

ForwardPrefix continued_from(const TextCaptures& run, int64_t tokens) {
  // A long text's keys are those its maps are made again from; a run keeping its maps keeps them apart.
  const at::Tensor& keys = run.attention.defined() ? run.layer_keys : run.keys;
  return {run.hidden_states, tokens,      run.attention,  run.head_outputs, keys,
          run.layer_values,  run.queries, run.value_gram, run.value_norms,  run.column_sums_before};
}

}  // namespace attnscope
