// How far reduced precision moves the captures: the same text through the same checkpoint in
// float32 and in float16 and bfloat16, on the CPU (the product offers reduced precision on CUDA
// only, where it is fast; the CPU runs the same operations, so the distance measured here is what
// a GPU run in that precision should be expected to show). Prints one JSON object per precision:
// the largest absolute difference of the attention maps A and of the head outputs C = A V from
// float32, and A's largest value for scale.
#include <ATen/ATen.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include "model/checkpoint.h"

int main(int argc, char** argv) {
  CLI::App app{"attnscope precision benchmark"};
  std::string model, text_file;
  size_t max_length = 128;
  app.add_option("--model", model, "Checkpoint folder")->required();
  app.add_option("--text-file", text_file, "Text to run (truncated to --max-len)")->required();
  app.add_option("--max-len", max_length)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::ifstream in(text_file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const auto run = [&](c10::ScalarType dtype) {
    attnscope::ComputeDevice device;
    device.dtype = dtype;  // on the CPU, past select_device's CUDA-only rule, for the measurement
    return attnscope::Checkpoint::load(model, device)->run(buffer.str(), max_length);
  };
  const attnscope::TextRun reference = run(at::kFloat);
  for (const auto& [name, dtype] : {std::pair{"float16", at::kHalf}, std::pair{"bfloat16", at::kBFloat16}}) {
    const attnscope::TextRun reduced = run(dtype);
    std::cout
        << nlohmann::json{{"precision", name},
                          {"tokens", reference.encoding.size()},
                          {"attention_max_abs_diff",
                           (reduced.captures.attention - reference.captures.attention).abs().max().item<double>()},
                          {"attention_mean_abs_diff",
                           (reduced.captures.attention - reference.captures.attention).abs().mean().item<double>()},
                          {"head_outputs_max_abs_diff",
                           (reduced.captures.head_outputs - reference.captures.head_outputs)
                               .abs()
                               .max()
                               .item<double>()},
                          {"head_outputs_max_abs", reference.captures.head_outputs.abs().max().item<double>()}}
               .dump()
        << "\n";
  }
  return 0;
}
