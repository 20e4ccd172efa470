#include "model/device.h"

#include <torch/cuda.h>

#include "base/error.h"

namespace attnscope {

std::string ComputeDevice::describe() const {
  const char* precision = dtype == c10::kHalf ? "float16" : dtype == c10::kBFloat16 ? "bfloat16" : "float32";
  return device.str() + " " + precision;
}

bool cuda_available() { return torch::cuda::is_available(); }

ComputeDevice select_device(std::string_view device, std::string_view precision) {
  ComputeDevice out;
  if (device == "auto") {
    out.device = cuda_available() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  } else if (device == "cpu") {
    out.device = c10::Device(c10::kCPU);
  } else if (device == "cuda" || device.starts_with("cuda:")) {
    if (!cuda_available())
      throw Error("device " + std::string(device) +
                  " was asked for, but libtorch sees no CUDA device on this machine (use --device cpu or auto)");
    int index = 0;
    if (device.size() > 5) {
      try {
        index = std::stoi(std::string(device.substr(5)));
      } catch (const std::exception&) {
        throw Error("device " + std::string(device) + ": expected cuda:N with a device number");
      }
    }
    if (index < 0 || index >= static_cast<int>(torch::cuda::device_count()))
      throw Error("device " + std::string(device) + ": this machine has " +
                  std::to_string(torch::cuda::device_count()) + " CUDA device(s)");
    out.device = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
  } else {
    throw Error("unknown device \"" + std::string(device) + "\" (expected auto, cpu, cuda or cuda:N)");
  }

  if (precision == "float32") {
    out.dtype = c10::kFloat;
  } else if (precision == "float16" || precision == "bfloat16") {
    if (!out.device.is_cuda())
      throw Error("precision " + std::string(precision) +
                  " is offered on CUDA only; on the CPU attnscope computes in float32");
    out.dtype = precision == "float16" ? c10::kHalf : c10::kBFloat16;
  } else {
    throw Error("unknown precision \"" + std::string(precision) + "\" (expected float32, float16 or bfloat16)");
  }
  return out;
}

}  // namespace attnscope
