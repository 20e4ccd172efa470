#pragma once
// The golden fixtures' tensors, written by Python as nested lists (tensor.tolist()), as float32
// tensors of the same shape; and the name of a parameterised test from a model name.
#include <ATen/core/Tensor.h>

#include <string>

#include <nlohmann/json.hpp>

namespace attnscope::test {

at::Tensor nested_tensor(const nlohmann::json& nested);

// "xlm-roberta" -> "xlm_roberta": GoogleTest's parameter names allow letters, digits and "_".
std::string test_name(std::string model);

}  // namespace attnscope::test
