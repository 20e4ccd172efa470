#include "support/golden_captures.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "support/nested_tensor.h"

namespace attnscope::test {

void expect_golden_case(const TextCaptures& got, const nlohmann::json& expected, const std::string& what) {
  const auto gap = [](const at::Tensor& a, const nlohmann::json& b) {
    return (a - nested_tensor(b)).abs().max().item<double>();
  };
  const auto& attention = expected["attention"];
  ASSERT_EQ(got.num_layers, static_cast<int64_t>(attention.size())) << what;
  for (size_t l = 0; l < attention.size(); ++l) {
    const auto layer = static_cast<int64_t>(l);
    EXPECT_LT(gap(got.attention[layer], attention[l]), 1e-5) << what << " attention, layer " << l;
    EXPECT_LT(gap(got.head_outputs[layer], expected["head_outputs"][l]), 1e-5) << what << " head outputs, layer " << l;
  }
  const auto& hidden = expected["hidden_states"];
  ASSERT_EQ(got.hidden_states.size(0), static_cast<int64_t>(hidden.size())) << what;
  for (size_t l = 0; l < hidden.size(); ++l)
    EXPECT_LT(gap(got.hidden_states[static_cast<int64_t>(l)], hidden[l]), 1e-4) << what << " hidden state " << l;
}

double relative_gap(const at::Tensor& ours, const at::Tensor& theirs) {
  return (ours.to(theirs.device()) - theirs).abs().max().item<double>() / theirs.abs().max().item<double>();
}

}  // namespace attnscope::test
