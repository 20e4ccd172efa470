#pragma once
// Copies of a real checkpoint with edited weights, written by the tests: heads permuted in the
// weights (the model computes the same thing with its heads in another order), or noise added.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace attnscope::test {

// Returns the tensor to write under `name` (the value itself to keep it).
using TensorEdit = std::function<at::Tensor(const std::string& name, const at::Tensor& value)>;

// Writes `to` (a new folder) as `from` with every tensor of model.safetensors passed through
// `edit`; the other files (config, tokenizer) are copied. float32 and int64 tensors only.
void write_modified_checkpoint(const std::filesystem::path& from, const std::filesystem::path& to,
                               const TensorEdit& edit);

// Writes `to` as `from` with max_position_embeddings set to `positions` (a tiny checkpoint's text
// past its sliding window or a block of 64 rows; rotary positions need no table).
void write_longer_checkpoint(const std::filesystem::path& from, const std::filesystem::path& to, int64_t positions);

// The edit that permutes the heads of every layer of a BERT checkpoint with `heads` heads:
// head j of layer l of the copy is head permutation[l][j] of the original (query, key and value
// rows and the columns of the attention output projection move together).
TensorEdit permute_heads(std::vector<std::vector<int>> permutation, int64_t heads);

// The edit that adds Gaussian noise of `relative` times each matrix's standard deviation to every
// weight matrix of the encoder layers (seeded, so the copy is the same every time).
TensorEdit add_noise(double relative, uint64_t seed);

}  // namespace attnscope::test
