#include "model/checkpoint.h"

#include <algorithm>

#include "base/error.h"
#include "model/gguf_tokenizer.h"
#include "model/model_locator.h"

namespace attnscope {

std::shared_ptr<const Checkpoint> Checkpoint::load(const std::filesystem::path& model, const ComputeDevice& device) {
  const std::filesystem::path dir = locate_model(model.string());
  auto checkpoint = std::make_shared<Checkpoint>();
  checkpoint->dir_ = dir;
  if (is_gguf_file(dir)) {  // one file holds the decoder's tokenizer and weights
    const GgufFile file(dir);
    checkpoint->tokenizer_ = load_gguf_tokenizer(file);
    checkpoint->model_ = Transformer::load_gguf(file, device);
  } else {
    checkpoint->tokenizer_ = load_tokenizer(dir);
    checkpoint->model_ = Transformer::load(dir, device);
  }
  const auto words = static_cast<int64_t>(checkpoint->tokenizer_->vocab_size());
  if (words > checkpoint->model_->config().vocab_size)
    throw Error(dir.string() + ": the tokenizer has " + std::to_string(words) +
                " tokens, but config.json's vocab_size is " + std::to_string(checkpoint->model_->config().vocab_size) +
                " (tokenizer and weights do not belong together)");
  return checkpoint;
}

std::unique_ptr<Tokenizer> Checkpoint::load_tokenizer_of(const std::filesystem::path& model) {
  const std::filesystem::path dir = locate_model(model.string());
  return is_gguf_file(dir) ? load_gguf_tokenizer(GgufFile(dir)) : load_tokenizer(dir);
}

size_t Checkpoint::default_max_length() const {
  return std::min(kDefaultMaxLength, static_cast<size_t>(model_->config().max_tokens()));
}

void Checkpoint::check_max_length(size_t max_length) const {
  const auto positions = static_cast<size_t>(model_->config().max_tokens());
  if (max_length < 2 || max_length > positions)
    throw Error("maximum length " + std::to_string(max_length) + " is out of range (2 to " + std::to_string(positions) +
                ", the model's positions)");
}

Encoding Checkpoint::encode(std::string_view text, size_t max_length) const {
  check_max_length(max_length);
  return tokenizer_->encode(text, max_length);
}

Encoding Checkpoint::encode(std::string_view text, size_t max_length, IncrementalEncoder& encoder) const {
  check_max_length(max_length);
  return encoder.encode(*tokenizer_, text, max_length);
}

std::vector<TextRun> Checkpoint::run(const std::vector<Encoding>& encodings, const CheckpointRun& o) const {
  std::vector<std::vector<int64_t>> ids;
  ids.reserve(encodings.size());
  for (const auto& e : encodings) ids.push_back(e.ids());
  const BatchCaptures batch = model_->forward(ids, {.capture = true,
                                                    .kept = o.kept,
                                                    .block_rows = o.block_rows,
                                                    .attention_blocks = o.attention_blocks,
                                                    .lenses = o.lenses,
                                                    .last_layer = o.last_layer,
                                                    .keep_layer_inputs = o.layer_inputs,
                                                    .column_sums_every = o.column_sums_every,
                                                    .prefix = o.prefix,
                                                    .keep_going = o.keep_going,
                                                    .progress = o.progress});
  // Unless asked, not where the last layer's output is missing, nor for a long text (its forward
  // keeps the last alone).
  const bool hidden_states = o.layer_inputs || (o.last_layer == LastLayer::Complete && o.kept == KeptAttention::Maps);
  std::vector<TextRun> runs;
  runs.reserve(encodings.size());
  for (size_t i = 0; i < encodings.size(); ++i)
    runs.push_back({encodings[i], text_captures(batch, i, o.to_host, hidden_states)});
  return runs;
}

TextRun Checkpoint::run(std::string_view text, size_t max_length, const CheckpointRun& options) const {
  return std::move(run(std::vector<Encoding>{encode(text, max_length)}, options).front());
}

}  // namespace attnscope
