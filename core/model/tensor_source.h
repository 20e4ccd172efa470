#pragma once
// Where the weight loader (model/transformer_weights.h) finds a checkpoint's tensors by their
// Hugging Face names: a model.safetensors file as it is, or a GGUF file whose names and layouts
// are translated (model/gguf_model.h). A source hands out host tensors; the loader checks their
// shapes and places them on the compute device.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/q8_rows.h"
#include "model/safetensors.h"

namespace attnscope {

class TensorSource {
 public:
  virtual ~TensorSource() = default;
  virtual const std::string& source() const = 0;  // the file, for messages
  // The tensor's shape (PyTorch's order), or nothing when the source has no tensor of that name.
  virtual std::optional<std::vector<int64_t>> shape(const std::string& name) const = 0;
  // The tensor on the host, float32, float16 or bfloat16 (one line when its type cannot be read).
  virtual at::Tensor read(const std::string& name) const = 0;
  // The matrix in ggml's Q8_0 blocks, where the source stores it so and read() would give its
  // dequantisation unchanged (model/q8_rows.h); nothing otherwise.
  virtual std::optional<Q8Rows> q8_rows(const std::string& /*name*/) const { return std::nullopt; }
};

class SafetensorsSource : public TensorSource {
 public:
  explicit SafetensorsSource(const SafetensorsFile& file) : file_(file) {}
  const std::string& source() const override { return file_.source(); }
  std::optional<std::vector<int64_t>> shape(const std::string& name) const override;
  at::Tensor read(const std::string& name) const override;

 private:
  const SafetensorsFile& file_;
};

}  // namespace attnscope
