#pragma once
// One text's captures against a golden case written by tools/make_encoder_golden.py or
// make_decoder_golden.py: the attention maps and head outputs of every layer within 1e-5, the
// hidden states within 1e-4, each failure naming `what`, the layer and the tensor.
#include <string>

#include <nlohmann/json.hpp>

#include "model/captures.h"

namespace attnscope::test {

void expect_golden_case(const TextCaptures& got, const nlohmann::json& expected, const std::string& what);

// The largest difference from the reference over the reference's largest magnitude: the relative
// gap real models' captures are held to (their values span several orders of magnitude).
double relative_gap(const at::Tensor& ours, const at::Tensor& theirs);

}  // namespace attnscope::test
