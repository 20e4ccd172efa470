// Latency of one text through attnscope, median of many runs after warm-up (not a test).
//
//   analyze        tokenise + forward with captures + captures copied out per text (CPU float32)
//   forward        forward with captures, ids already tokenised
//   plain forward  forward without captures (fused attention), the floor captures are measured on
//
// Prints one JSON object. bench/run.sh runs it beside bench/reference_forward.py.
#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include "model/checkpoint.h"

namespace {

double median_ms(int warmup, int runs, const std::function<void()>& work) {
  for (int i = 0; i < warmup; ++i) work();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[static_cast<size_t>(runs / 2)];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnscope forward-pass benchmark"};
  std::string model, text_file, device = "cpu";
  int runs = 30, warmup = 5, threads = 2;
  size_t max_length = 128;
  app.add_option("--model", model, "Checkpoint folder")->required();
  app.add_option("--text-file", text_file, "Text to analyse (truncated to --max-len)")->required();
  app.add_option("--max-len", max_length)->capture_default_str();
  app.add_option("--runs", runs)->capture_default_str();
  app.add_option("--warmup", warmup)->capture_default_str();
  app.add_option("--threads", threads)->capture_default_str();
  app.add_option("--device", device)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  at::set_num_threads(threads);
  std::ifstream in(text_file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const auto checkpoint = attnscope::Checkpoint::load(model, attnscope::select_device(device));
  const auto ids = checkpoint->encode(text, max_length).ids();

  const double analyze = median_ms(warmup, runs, [&] { checkpoint->run(text, max_length, true); });
  const double forward = median_ms(warmup, runs, [&] { checkpoint->model().forward({ids}, true); });
  const double plain = median_ms(warmup, runs, [&] { checkpoint->model().forward({ids}, false); });
  std::cout << nlohmann::json{{"tokens", ids.size()}, {"threads", threads},    {"runs", runs},
                              {"analyze_ms", analyze}, {"forward_capture_ms", forward}, {"forward_plain_ms", plain}}
                   .dump()
            << "\n";
  return 0;
}
