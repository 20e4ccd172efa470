#pragma once
// A checkpoint folder opened for use: its tokenizer and its model, and the one step everything
// else builds on: text in, tokens and captures out.
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include "model/transformer.h"
#include "tokenizer/incremental_encoder.h"
#include "tokenizer/tokenizer.h"

namespace attnscope {

struct TextRun {
  Encoding encoding;
  TextCaptures captures;
};

struct CheckpointRun {
  bool to_host = true;  // captures as contiguous CPU float32; otherwise on the device, in its precision
  bool lenses = false;  // also what the norm-based lens and the query/key view need (TextCaptures::value_norms, ...)
  // HeadOutputsOnly: the last layer stops at its head outputs (no view, analysis or result file
  // reads more) and the captures carry no hidden states; HeadOutputsAndLastToken keeps the last
  // token's final state (TextCaptures::last_state) as well.
  LastLayer last_layer = LastLayer::Complete;
  KeepGoing keep_going;
  // Every map, or (a long text: model/capture_plan.h) the queries, keys and column sums that
  // recompute them (with the lenses, the value norms and Gram matrices too: O(n) as well).
  KeptAttention kept = KeptAttention::Maps;
  AttentionBlockSink attention_blocks;  // with QueriesAndKeys: each block of maps as it is made (ForwardOptions)
  int64_t block_rows = 0;               // with QueriesAndKeys: rows of such a block (ForwardOptions); 0: its own
  // Keep each layer's input (TextCaptures::hidden_states) whatever the last layer and the kept
  // attention: what a later run continues from (`prefix`).
  bool layer_inputs = false;
  int64_t column_sums_every = 1024;  // with layer_inputs (ForwardOptions)
  ForwardPrefix prefix = {};         // a decoder's one text continued from a run before (ForwardOptions::prefix)
  ProgressReport progress;           // after each layer (ForwardOptions::progress)
};

class Checkpoint {
 public:
  // Reads config.json, tokenizer.json or vocab.txt (+ tokenizer_config.json) and model.safetensors from a checkpoint
  // folder, or from the Hugging Face cache's copy of a model id (see model_locator.h).
  static std::shared_ptr<const Checkpoint> load(const std::filesystem::path& model, const ComputeDevice& device);

  // The tokenizer alone of a checkpoint folder, a GGUF file or a folder holding one, or a model id
  // (as load finds them), without reading the weights.
  static std::unique_ptr<Tokenizer> load_tokenizer_of(const std::filesystem::path& model);

  // 128 (the paper's N), or the model's positions when it has fewer.
  size_t default_max_length() const;
  // Tokenise with truncation to max_length (2 .. the model's positions).
  Encoding encode(std::string_view text, size_t max_length) const;
  // The same, tokenising again only what changed since the text `encoder` saw last.
  Encoding encode(std::string_view text, size_t max_length, IncrementalEncoder& encoder) const;
  // Run texts as one padded batch; captures come back per text, pads removed.
  std::vector<TextRun> run(const std::vector<Encoding>& encodings, const CheckpointRun& options = {}) const;
  TextRun run(std::string_view text, size_t max_length, const CheckpointRun& options = {}) const;

  const std::filesystem::path& dir() const { return dir_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const Transformer& model() const { return *model_; }

 private:
  void check_max_length(size_t max_length) const;

  std::filesystem::path dir_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::shared_ptr<const Transformer> model_;
};

}  // namespace attnscope
