#pragma once
// Where the model runs and in which precision: `auto` takes CUDA when libtorch sees a GPU.
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <string>
#include <string_view>

namespace attnscope {

struct ComputeDevice {
  c10::Device device = c10::Device(c10::kCPU);
  c10::ScalarType dtype = c10::kFloat;

  std::string describe() const;  // e.g. "cpu float32", "cuda:0 float16"
};

bool cuda_available();
// device: auto | cpu | cuda | cuda:N; precision: float32 | float16 | bfloat16 (the last two on
// CUDA only). Throws attnscope::Error with what was asked and what this machine has.
ComputeDevice select_device(std::string_view device, std::string_view precision = "float32");

}  // namespace attnscope
