#pragma once
// The [V, D] matrix of a vocabulary's rows, read two ways: a row per token (the word embeddings)
// and every row times one state (a decoder's next-token scores, the output matrix or the word
// embeddings where tied). Held as a tensor on the compute device; or, where a GGUF file stores it
// in Q8_0 and the model runs in float32 on the CPU, in those blocks (model/q8_rows.h): the same
// rows to the bit in a quarter of the memory (Gemma 3's 262,144 x 640 table: 184 MB, not 671),
// and scores that read a quarter of the bytes.
#include <ATen/core/Tensor.h>

#include <optional>

#include "model/q8_rows.h"

namespace attnscope {

class TokenMatrix {
 public:
  TokenMatrix() = default;
  explicit TokenMatrix(at::Tensor dense) : dense_(std::move(dense)) {}
  explicit TokenMatrix(Q8Rows rows) : q8_(std::move(rows)) {}

  bool defined() const { return dense_.defined() || q8_.has_value(); }
  bool quantized() const { return q8_.has_value(); }
  // The rows of these token ids, [ids' shape..., D] on the matrix's device and dtype (float32 on
  // the CPU where quantized); one line for an id outside the vocabulary.
  at::Tensor lookup(const at::Tensor& ids) const;
  // Every row times `state` [D] (moved to the matrix's device and dtype): [V].
  at::Tensor scores(const at::Tensor& state) const;

 private:
  at::Tensor dense_;
  std::optional<Q8Rows> q8_;
};

// A dense output matrix [V, D] times a state [D]: each token's score, as torch's product gives it
// up to the order each row is summed in (on the CPU in float32 a loop of our own, the rows split
// among the threads).
at::Tensor output_scores(const at::Tensor& output, const at::Tensor& state);

}  // namespace attnscope
